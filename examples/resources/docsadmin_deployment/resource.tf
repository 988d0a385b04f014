# Copying this? Declare the provider's source once per module, as on the
# provider page, or terraform init looks for hashicorp/docsadmin:
#   terraform { required_providers { docsadmin = { source = "docsadmin/docsadmin" } } }

# Publish, deploy, then export exactly what was deployed.
variable "docs_commit" {
  type        = string
  description = "Commit of the docs repository that was just pushed to the deployment branch."
}

# Deploys the project from its deployment branch whenever docs_commit
# changes, and waits until the deployment succeeds: a failed deployment
# fails the apply with the build's summary and the end of its log.
resource "docsadmin_deployment" "docs" {
  project_id = "proj_0123456789"
  triggers   = { docs_commit = var.docs_commit }

  timeouts {
    create = "45m"
    update = "45m"
  }
}

# Keyed on the commit the platform deployed, not on the one pushed: the
# export starts only once that commit is live, and exports again only when a
# new one is.
resource "docsadmin_static_export" "docs" {
  domain   = "docs.example.com"
  triggers = { commit = docsadmin_deployment.docs.commit_sha }
}

output "deployed_commit" {
  value = docsadmin_deployment.docs.commit_sha
}
