# Terraform 1.12 and later can also name the export job by identity.
import {
  to = docsadmin_static_export.docs
  identity = {
    domain = "docs.example.com"
    job_id = "se_3f9a2c1b8e7d4a06"
  }
}
