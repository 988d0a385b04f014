# Copying this? Declare the provider's source once per module, as on the
# provider page, or terraform init looks for hashicorp/docsadmin:
#   terraform { required_providers { docsadmin = { source = "docsadmin/docsadmin" } } }

# Read an export job that another pipeline started.
data "docsadmin_static_export" "nightly" {
  job_id = "se_3f9a2c1b8e7d4a06"
}

output "nightly_export" {
  value = {
    status     = data.docsadmin_static_export.nightly.status
    progress   = data.docsadmin_static_export.nightly.progress
    page_count = data.docsadmin_static_export.nightly.page_count
    error      = data.docsadmin_static_export.nightly.error
  }
}
