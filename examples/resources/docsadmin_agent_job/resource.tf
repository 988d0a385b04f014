# Copying this? Declare the provider's source once per module, as on the
# provider page, or terraform init looks for hashicorp/docsadmin:
#   terraform { required_providers { docsadmin = { source = "docsadmin/docsadmin" } } }

# Ask the agent to update the documentation whenever the release version
# changes, and keep its pull request in state. Works on OpenTofu and on
# Terraform versions without actions.
variable "release_version" {
  type = string
}

resource "docsadmin_agent_job" "update_docs" {
  project_id = "proj_0123456789"
  prompt     = "Update the documentation for release ${var.release_version}: describe what changed and update the examples."
  triggers   = { release = var.release_version }

  wait = true
  timeouts {
    create = "30m"
  }
}

output "pull_request" {
  # Null when the agent finished without changing any file.
  value = docsadmin_agent_job.update_docs.pr_link
}
