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

# The export's site, verified and published at dist/site: a symbolic link
# that switches to each new export's release in one step, so a server of
# dist/site never sees a missing or half-written site. A new docs_commit
# updates the site in place. Refresh checks the release on disk; a fresh
# runner or a changed file plans an in-place restore (one download, no new
# export).
resource "docsadmin_static_site" "docs" {
  job_id          = docsadmin_static_export.docs.job_id
  directory       = "${path.module}/dist/site"
  expected_sha256 = docsadmin_static_export.docs.archive_sha256
}

# Serve or sync the directory itself, by its path: a server that resolves
# the link on each request (nginx, python3 -m http.server --directory
# dist/site) serves every new export. One started inside it (cd dist/site &&
# python3 -m http.server) keeps the release it found, which a later
# publication removes: see the static hosting guide. A sync that reads the tree for a while (aws s3 sync, rsync)
# reads release_directory, which never changes under it, and takes each
# file's type, cache policy and MD5 from manifest_file (a JSON object by
# path, written beside the release). State holds no file, whatever the
# site's size.
output "site" {
  value = {
    directory = docsadmin_static_site.docs.directory
    release   = docsadmin_static_site.docs.release_directory
    manifest  = docsadmin_static_site.docs.manifest_file
    files     = docsadmin_static_site.docs.file_count
  }
}

# Per-file uploads need the files at plan time: a new export's are known
# only after apply, so plan them in a second configuration from
# data "docsadmin_static_site_manifest" (see the static hosting guide).
