# Mirror the static export into an Azure Storage container and point the chart
# at the copy: a URL that never expires, uploaded again only when the content changes.
terraform {
  required_version = ">= 1.10"
  required_providers {
    docsadmin = { source = "docsadmin/docsadmin", version = "~> 0.1" }
    azurerm   = { source = "hashicorp/azurerm", version = "~> 4.77" } # storage_container_id
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

variable "storage_container_id" {
  type        = string
  description = "ID of the container whose blobs the cluster's pods can read without a SAS token (azurerm_storage_container's id)."
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
  name                 = "docs/${docsadmin_static_export.docs.archive_sha256}.tar.gz"
  storage_container_id = var.storage_container_id
  type                 = "Block"
  source               = docsadmin_static_export_file.docs.filename
  # Hex, as the argument expects (the provider converts it to the base64 of
  # the Content-MD5 header). content_md5 forces a new blob when it changes,
  # so it must be known at plan time: the export's digest is, even on a
  # fresh runner, where the file resource's md5 is unknown until it has
  # written the file again and a planned replacement would fail on a blob
  # that already exists.
  content_md5  = docsadmin_static_export.docs.archive_md5
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
