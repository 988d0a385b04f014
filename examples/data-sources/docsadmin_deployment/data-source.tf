# Copying this? Declare the provider's source once per module, as on the
# provider page, or terraform init looks for hashicorp/docsadmin:
#   terraform { required_providers { docsadmin = { source = "docsadmin/docsadmin" } } }

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
