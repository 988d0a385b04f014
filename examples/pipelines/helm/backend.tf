# Where the state lives. A CI runner starts empty: without a shared backend
# every run would start from no state, export again and find the Helm release
# already installed. The settings come from `terraform init -backend-config=FILE`
# (the pipelines in ../ci write FILE from the TF_BACKEND_CONFIG variable), and
# credentials from the backend's own environment variables, so that neither
# is written here. Every backend below locks the state while a run writes it.
#
# Amazon S3 (Terraform 1.10+ locks with a lock object next to the state):
#   bucket       = "example-terraform-state"
#   key          = "docs-deploy/terraform.tfstate"
#   region       = "eu-west-1"
#   use_lockfile = true
#
# For another backend, change "s3" below and put its settings in FILE:
#   gcs (locks on its own):      bucket = "...", prefix = "docs-deploy"
#   azurerm (locks on its own):  storage_account_name = "...", container_name = "tfstate",
#                                key = "docs-deploy.tfstate", use_azuread_auth = true
#   http (locks only with lock_address and unlock_address set; for GitLab-managed state,
#   address = "<api>/projects/<id>/terraform/state/docs-deploy", lock_address and
#   unlock_address = "<address>/lock", lock_method = "POST", unlock_method = "DELETE")
terraform {
  backend "s3" {}
}
