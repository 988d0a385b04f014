# Mirror the static export into an Azure Storage container and point the chart
# at the copy: a URL that never expires, uploaded again only when the content changes.
terraform {
  required_version = ">= 1.10"
  required_providers {
    docsadmin = { source = "docsadmin/docsadmin", version = "~> 0.1" }
    azurerm   = { source = "hashicorp/azurerm", version = "~> 4.0" }
    helm      = { source = "hashicorp/helm", version = "~> 3.0" }
  }
}

# DOCSADMIN_BASE_URL and a write-scoped DOCSADMIN_API_KEY come from the environment.
provider "docsadmin" {}

provider "azurerm" {
  features {}
}

provider "helm" {
  kubernetes = {
    config_path = "~/.kube/config"
  }
}

variable "docs_commit" {
  type        = string
  description = "Commit of the docs repository that was just published."
}

variable "storage_account_name" {
  type = string
}

variable "container_name" {
  type        = string
  description = "Container whose blobs the cluster's pods can read without a SAS token."
}

resource "docsadmin_static_export" "docs" {
  domain   = "docs.example.com"
  triggers = { docs_commit = var.docs_commit }
}

resource "docsadmin_static_export_file" "docs" {
  job_id          = docsadmin_static_export.docs.job_id
  filename        = "${path.module}/dist/docs-bundle.tar.gz"
  expected_sha256 = docsadmin_static_export.docs.archive_sha256
}

resource "azurerm_storage_blob" "docs" {
  # Named by content: a new export is a new blob at a new URL (see ../README.md).
  name                   = "docs/${docsadmin_static_export_file.docs.sha256}.tar.gz"
  storage_account_name   = var.storage_account_name
  storage_container_name = var.container_name
  type                   = "Block"
  source                 = docsadmin_static_export_file.docs.filename
  # What filemd5() of the file gives, known from state rather than read at plan time.
  content_md5  = docsadmin_static_export_file.docs.md5
  content_type = "application/gzip"

  lifecycle {
    create_before_destroy = true
  }
}

resource "helm_release" "docs" {
  name      = "docs"
  namespace = "docs"
  chart     = "./charts/docs"
  wait      = true
  atomic    = true

  values = [yamlencode(provider::docsadmin::helm_values(azurerm_storage_blob.docs.url, null))]
}
