# An export job is imported by its domain and job id.
terraform import docsadmin_static_export.docs docs.example.com/se_3f9a2c1b8e7d4a06
