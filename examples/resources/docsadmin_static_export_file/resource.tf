# Copying this? Declare the provider's source once per module, as on the
# provider page, or terraform init looks for hashicorp/docsadmin:
#   terraform { required_providers { docsadmin = { source = "docsadmin/docsadmin" } } }

variable "docs_commit" {
  type = string
}

resource "docsadmin_static_export" "docs" {
  domain   = "docs.example.com"
  triggers = { docs_commit = var.docs_commit }
}

# The export's archive, verified, in a file that outlives the presigned link.
# A refresh that finds it missing (a fresh CI runner) or changed removes the
# resource from state, and the next apply writes it again: one download, no
# new export. Refresh itself never writes it.
resource "docsadmin_static_export_file" "docs" {
  job_id   = docsadmin_static_export.docs.job_id
  filename = "${path.module}/dist/docs-bundle.tar.gz"
}

# The digests are known without reading the file, for the checksum
# arguments of an upload (source_hash, content_md5, source_md5hash).
output "archive_sha256" {
  value = docsadmin_static_export_file.docs.sha256
}

output "archive_md5" {
  value = docsadmin_static_export_file.docs.md5
}
