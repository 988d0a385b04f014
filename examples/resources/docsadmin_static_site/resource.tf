variable "docs_commit" {
  type = string
}

resource "docsadmin_static_export" "docs" {
  domain   = "docs.example.com"
  triggers = { docs_commit = var.docs_commit }
}

# The export's site, verified and unpacked into a directory of its own.
# Refresh checks the tree on disk; a fresh runner or a changed file plans an
# in-place restore (one download, no new export) and files stays known.
resource "docsadmin_static_site" "docs" {
  job_id          = docsadmin_static_export.docs.job_id
  directory       = "${path.module}/dist/site"
  expected_sha256 = docsadmin_static_export.docs.archive_sha256
}

# One upload per file, planned from the manifest in state: replace
# terraform_data with your store's object resource (key, source, content
# type, cache control and checksum come from each.key and each.value).
resource "terraform_data" "upload" {
  for_each = docsadmin_static_site.docs.files

  input = {
    key           = each.key
    source        = "${docsadmin_static_site.docs.directory}/${each.key}"
    content_type  = each.value.content_type
    cache_control = each.value.cache_control
    content_md5   = each.value.md5_base64
  }
}

# Hosts that do not resolve extensionless URLs: one copy of each page under
# its route (the root, "", is the index document).
output "routes" {
  value = docsadmin_static_site.docs.routes
}
