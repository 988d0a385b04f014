# Copying this? Declare the provider's source once per module, as on the
# provider page, or terraform init looks for hashicorp/docsadmin:
#   terraform { required_providers { docsadmin = { source = "docsadmin/docsadmin" } } }

# Wait for an agent job to finish, fail the plan if it failed, and publish
# the pull request it opened.
variable "agent_job_id" {
  type = string
}

data "docsadmin_agent_job" "fix_typos" {
  job_id = var.agent_job_id
  wait   = true
  timeouts {
    read = "30m"
  }

  lifecycle {
    postcondition {
      condition     = self.status != "failed"
      error_message = "Agent job ${self.job_id} failed; see its logs on the dashboard."
    }
  }
}

output "pull_request" {
  # Null when the agent finished without changing any file.
  value = data.docsadmin_agent_job.fix_typos.pr_link
}
