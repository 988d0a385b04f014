# Stage 1 of publishing to a static host: export the site (again for every new
# docs_commit) and hand the job id to stage 2, which plans the uploads from the
# export's manifest (../s3-cloudfront, ../gcs, ../azure). Two root modules,
# two states: stage 2 reads a completed export, so its plan lists every file
# even for an export started a moment ago.
terraform {
  required_version = ">= 1.10"
  required_providers {
    docsadmin = { source = "docsadmin/docsadmin", version = "~> 0.1" }
  }
}

# DOCSADMIN_BASE_URL and a write-scoped DOCSADMIN_API_KEY come from the environment.
provider "docsadmin" {}

variable "docs_domain" {
  type        = string
  description = "Hostname of the documentation site to export."
  default     = "docs.example.com"
}

variable "docs_commit" {
  type        = string
  description = "Commit of the docs repository that was just published; a new value exports again."
}

resource "docsadmin_static_export" "docs" {
  domain   = var.docs_domain
  triggers = { docs_commit = var.docs_commit }
}

# Stage 2 takes this as TF_VAR_docs_job_id (terraform output -raw job_id).
output "job_id" {
  value = docsadmin_static_export.docs.job_id
}

output "archive_sha256" {
  value = docsadmin_static_export.docs.archive_sha256
}
