# The connected side of an air-gapped delivery: export the site, download and
# verify its archive, and leave it with its digest in transfer/ for the
# approved transfer into the isolated network.
terraform {
  required_version = ">= 1.10"
  required_providers {
    docsadmin = {
      source  = "docsadmin/docsadmin"
      version = "~> 0.1"
    }
  }
}

# DOCSADMIN_BASE_URL and a write-scoped DOCSADMIN_API_KEY come from the
# environment: starting an export and generating a link both need write.
provider "docsadmin" {}

variable "docs_commit" {
  type        = string
  description = "Commit of the docs repository that was just published."
}

variable "docs_domain" {
  type    = string
  default = "docs.example.com"
}

resource "docsadmin_static_export" "docs" {
  domain   = var.docs_domain
  triggers = { docs_commit = var.docs_commit }
}

# Downloads with a fresh link, refuses an archive a deployment could not serve,
# and moves the file into place only once it is complete. On a fresh runner
# the next apply writes it again without exporting again.
resource "docsadmin_static_export_file" "bundle" {
  job_id   = docsadmin_static_export.docs.job_id
  filename = "${path.module}/transfer/docs-bundle.tar.gz"
  # The copy must be the very archive the export verified.
  expected_sha256 = docsadmin_static_export.docs.archive_sha256
}

# The digest in sha256sum's format, for the checksum file that travels with
# the archive:
#   terraform output -raw sha256sum > transfer/docs-bundle.tar.gz.sha256
output "sha256sum" {
  description = "The archive's SHA-256 followed by its file name, as sha256sum writes and checks it."
  value       = "${docsadmin_static_export_file.bundle.sha256}  ${basename(docsadmin_static_export_file.bundle.filename)}\n"
}

output "archive" {
  description = "What was written, for the transfer's records."
  value = {
    filename   = docsadmin_static_export_file.bundle.filename
    sha256     = docsadmin_static_export_file.bundle.sha256
    size_bytes = docsadmin_static_export_file.bundle.size_bytes
    file_count = docsadmin_static_export_file.bundle.file_count
    job_id     = docsadmin_static_export.docs.job_id
  }
}
