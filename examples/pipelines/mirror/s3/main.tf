# Mirror the static export into an S3 bucket and point the chart at the copy:
# a URL that never expires, uploaded again only when the content changes.
terraform {
  required_version = ">= 1.10"
  required_providers {
    docsadmin = { source = "docsadmin/docsadmin", version = "~> 0.1" }
    aws       = { source = "hashicorp/aws", version = "~> 6.0" }
    helm      = { source = "hashicorp/helm", version = "~> 3.0" }
  }
}

# DOCSADMIN_BASE_URL and a write-scoped DOCSADMIN_API_KEY come from the environment.
provider "docsadmin" {}

provider "aws" {
  region = var.region
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

variable "region" {
  type    = string
  default = "eu-west-1"
}

variable "mirror_bucket" {
  type        = string
  description = "Bucket the cluster's pods can read without a signature, for example through a bucket policy for the cluster's VPC endpoint."
}

resource "docsadmin_static_export" "docs" {
  domain   = "docs.example.com"
  triggers = { docs_commit = var.docs_commit }
}

# Downloads with a fresh link of its own, verifies the archive and compares it
# with the digest recorded when the export completed. On a fresh CI runner the
# file is missing: the next apply downloads it again, and since the content is
# the same, nothing below changes.
resource "docsadmin_static_export_file" "docs" {
  job_id          = docsadmin_static_export.docs.job_id
  filename        = "${path.module}/dist/docs-bundle.tar.gz"
  expected_sha256 = docsadmin_static_export.docs.archive_sha256
}

data "aws_s3_bucket" "mirror" {
  bucket = var.mirror_bucket
}

resource "aws_s3_object" "docs" {
  bucket = data.aws_s3_bucket.mirror.id
  # Named by content: a new export is a new object at a new URL, so the chart's
  # values change and the pods roll, while pods still starting on the old
  # values keep fetching the old object until the rollout is over. The digest
  # comes from the export, known at plan time even on a fresh runner (the
  # file resource's own digests are not, while it writes the file again).
  key          = "docs/${docsadmin_static_export.docs.archive_sha256}.tar.gz"
  source       = docsadmin_static_export_file.docs.filename
  source_hash  = docsadmin_static_export.docs.archive_sha256 # stored in state only: uploads again when the content changes
  content_type = "application/gzip"                          # never content_encoding = "gzip": the archive is served as stored

  lifecycle {
    create_before_destroy = true # the old object goes only after the release has rolled onto the new one
  }
}

resource "helm_release" "docs" {
  name      = "docs"
  namespace = "docs"
  chart     = "./charts/docs"
  wait      = true
  atomic    = true

  values = [yamlencode(provider::docsadmin::helm_values(
    "https://${data.aws_s3_bucket.mirror.bucket_regional_domain_name}/${aws_s3_object.docs.key}",
    null,
  ))]
}
