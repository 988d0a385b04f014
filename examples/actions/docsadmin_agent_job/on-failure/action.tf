# Copying this? Declare the provider's source once per module, as on the
# provider page, or terraform init looks for hashicorp/docsadmin:
#   terraform { required_providers { docsadmin = { source = "docsadmin/docsadmin" } } }

# A release must not fail because the documentation job did. With
# on_failure = continue (Terraform 1.16+), a failed or timed-out agent job is
# reported as a warning and the apply goes on: the release is recorded, and
# the job can be started again by hand with -invoke.
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
      events     = [after_create, after_update]
      actions    = [action.docsadmin_agent_job.update_docs]
      on_failure = continue
    }
  }
}
