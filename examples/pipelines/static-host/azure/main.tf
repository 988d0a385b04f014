# Stage 2 of publishing to a static host: publish the site of a completed
# export into an Azure Storage static website ($web), with
# docsadmin_static_site_bucket. Stage 1 (../export) exports and passes the
# job id.
terraform {
  required_version = ">= 1.10"
  required_providers {
    docsadmin = { source = "docsadmin/docsadmin", version = "~> 0.1" }
    azurerm   = { source = "hashicorp/azurerm", version = "~> 4.77" }
  }
}

# DOCSADMIN_BASE_URL and a DOCSADMIN_API_KEY come from the environment.
provider "docsadmin" {}

provider "azurerm" {
  features {}
}

variable "docs_job_id" {
  type        = string
  description = "Job id of the completed export: terraform output -raw job_id of stage 1."
}

variable "storage_account_id" {
  type        = string
  description = "ID of the storage account (StorageV2) that serves the site."
}

variable "storage_account_name" {
  type        = string
  description = "Name of that storage account."
}

# The static website: /guides/ serves guides/index.html (index_document);
# 404.html answers unknown paths when the export has one.
resource "azurerm_storage_account_static_website" "site" {
  storage_account_id = var.storage_account_id
  index_document     = "index.html"
  error_404_document = "404.html"
}

# The export's site, verified and published into $web by the provider
# itself: only the files that differ are uploaded, assets before the pages
# that load them, and each page is also stored under its extensionless URL,
# which Azure never maps to .html. Credentials: an Azure identity with the
# Storage Blob Data Contributor role (workload identity on the runner, or
# AZURE_CLIENT_ID and a secret), or AZURE_STORAGE_KEY.
resource "docsadmin_static_site_bucket" "docs" {
  job_id = var.docs_job_id
  azure = {
    container = "$web"
    account   = var.storage_account_name
  }

  timeouts {
    create = "45m"
    update = "45m"
  }

  depends_on = [azurerm_storage_account_static_website.site]
}
