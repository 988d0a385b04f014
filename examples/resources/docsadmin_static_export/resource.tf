# Export the whole site; the link is renewed in place before it expires.
resource "docsadmin_static_export" "docs" {
  domain = "docs.example.com"
}

# Export selected pages of a pinned version, and export again whenever the
# docs repository gets a new commit.
variable "docs_commit" {
  type        = string
  description = "Commit of the docs repository that was just published."
}

resource "docsadmin_static_export" "release" {
  domain  = "docs.example.com"
  version = "v2"
  paths   = ["index", "guides/getting-started"]

  triggers = {
    docs_commit = var.docs_commit
  }

  # Renew the link when less than 12 hours remain.
  renew_before = "12h"

  timeouts {
    create = "90m"
  }
}

output "bundle_url" {
  value     = docsadmin_static_export.release.bundle_url
  sensitive = true
}
