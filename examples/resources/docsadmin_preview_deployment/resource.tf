# Copying this? Declare the provider's source once per module, as on the
# provider page, or terraform init looks for hashicorp/docsadmin:
#   terraform { required_providers { docsadmin = { source = "docsadmin/docsadmin" } } }

# A preview of a pull request's branch, rebuilt whenever the branch moves.
variable "branch" {
  type        = string
  description = "Branch of the docs repository to preview."
}

variable "branch_head" {
  type        = string
  description = "Commit at the tip of the branch, for example from the CI system."
}

resource "docsadmin_preview_deployment" "pr" {
  project_id = "proj_0123456789"
  branch     = var.branch
  triggers   = { head = var.branch_head }

  # Wait for the build (the default) and fail the apply when it fails.
  wait = true
  timeouts {
    create = "20m"
    update = "20m"
  }
}

output "preview_url" {
  value = docsadmin_preview_deployment.pr.preview_url
}

output "previewed_commit" {
  value = docsadmin_preview_deployment.pr.commit_sha
}
