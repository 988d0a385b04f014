# Copying this? Declare the provider's source once per module, as on the
# provider page, or terraform init looks for hashicorp/docsadmin:
#   terraform { required_providers { docsadmin = { source = "docsadmin/docsadmin" } } }

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

variable "link_rotation" {
  type        = string
  description = "Change to hand out a fresh link for the same export, for example after a link leaked."
  default     = "1"
}

resource "docsadmin_static_export" "release" {
  domain  = "docs.example.com"
  version = "v2"
  paths   = ["index", "guides/getting-started"]

  triggers = {
    docs_commit = var.docs_commit
  }

  # Renew the link when less than 12 hours remain, and whenever
  # link_rotation changes (same export, new link).
  renew_before   = "12h"
  renew_triggers = { rotation = var.link_rotation }

  # create bounds the first export; a new docs_commit exports again in
  # place, an update, which update bounds (default 30m).
  timeouts {
    create = "90m"
    update = "90m"
  }
}

output "bundle_url" {
  value     = docsadmin_static_export.release.bundle_url
  sensitive = true
}

# Changes only when the content does: a renewal keeps it. Feed it to a
# pod-template annotation so that pods roll on new content only.
output "archive_sha256" {
  value = docsadmin_static_export.release.archive_sha256
}
