# Copying this? Declare the provider's source once per module, as on the
# provider page, or terraform init looks for hashicorp/docsadmin:
#   terraform { required_providers { docsadmin = { source = "docsadmin/docsadmin" } } }

# Ask the agent to update the documentation whenever the release version
# changes, and wait for the pull request it opens. Requires Terraform 1.14+.
variable "release_version" {
  type = string
}

action "docsadmin_agent_job" "update_docs" {
  config {
    prompt  = "Update the documentation for release ${var.release_version}: describe what changed and update the examples."
    wait    = true
    timeout = "30m"
  }
}

resource "terraform_data" "release" {
  input = var.release_version

  lifecycle {
    action_trigger {
      events  = [after_create, after_update]
      actions = [action.docsadmin_agent_job.update_docs]
    }
  }
}
