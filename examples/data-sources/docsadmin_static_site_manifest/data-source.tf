# Copying this? Declare the provider's source once per module, as on the
# provider page, or terraform init looks for hashicorp/docsadmin:
#   terraform { required_providers { docsadmin = { source = "docsadmin/docsadmin" } } }

# Second stage of a pipeline: the export was made by the first stage, whose
# job_id is passed in, so the files are known at plan and for_each plans.
variable "docs_job_id" {
  type = string
}

data "docsadmin_static_site_manifest" "docs" {
  job_id = var.docs_job_id
}

resource "terraform_data" "upload" {
  for_each = data.docsadmin_static_site_manifest.docs.files

  input = {
    key           = each.key
    sha256        = each.value.sha256
    content_type  = each.value.content_type
    cache_control = each.value.cache_control
  }
}

output "site_sha256" {
  value = data.docsadmin_static_site_manifest.docs.archive_sha256
}
