# Read a deployment that something else queued (the Git integration, another
# pipeline) and refuse to go on unless it succeeded.
variable "deployment_status_id" {
  type = string
}

data "docsadmin_deployment" "latest" {
  status_id = var.deployment_status_id

  lifecycle {
    postcondition {
      condition     = self.status == "success"
      error_message = "Deployment ${self.status_id} is ${self.status}: ${coalesce(self.summary, "no summary")}."
    }
  }
}

output "deployed_commit" {
  value = data.docsadmin_deployment.latest.commit_sha
}
