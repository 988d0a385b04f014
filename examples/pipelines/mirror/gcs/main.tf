# Mirror the static export into a Cloud Storage bucket and point the chart at
# the copy: a URL that never expires, uploaded again only when the content changes.
terraform {
  required_version = ">= 1.10"
  required_providers {
    docsadmin = { source = "docsadmin/docsadmin", version = "~> 0.1" }
    google    = { source = "hashicorp/google", version = "~> 6.0" }
    helm      = { source = "hashicorp/helm", version = "~> 3.0" }
  }
}

# DOCSADMIN_BASE_URL and a write-scoped DOCSADMIN_API_KEY come from the environment.
provider "docsadmin" {}

provider "google" {
  project = var.project
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

variable "project" {
  type = string
}

variable "mirror_bucket" {
  type        = string
  description = "Bucket whose objects the cluster's pods can read without a signature."
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

resource "google_storage_bucket_object" "docs" {
  bucket = var.mirror_bucket
  # Named by content: a new export is a new object at a new URL (see ../README.md).
  name   = "docs/${docsadmin_static_export.docs.archive_sha256}.tar.gz"
  source = docsadmin_static_export_file.docs.filename
  # Base64, as the argument expects, and known at plan time even on a fresh
  # runner, where the file resource's own digests are not until it has
  # written the file again: an unknown value here would plan an upload.
  source_md5hash = docsadmin_static_export.docs.archive_md5_base64
  content_type   = "application/gzip"

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

  values = [yamlencode(provider::docsadmin::helm_values(
    "https://storage.googleapis.com/${google_storage_bucket_object.docs.bucket}/${google_storage_bucket_object.docs.name}",
    null,
  ))]
}
