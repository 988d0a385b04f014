# Upload the verified archive to storage inside the isolated network (here an
# S3-compatible store such as MinIO) and point the chart at it.

variable "s3_endpoint" {
  type        = string
  description = "S3 API of the internal store, as this machine reaches it, e.g. https://minio.storage.internal:9000."
}

variable "bucket" {
  type        = string
  description = "Bucket the cluster's pods can read without a signature."
}

variable "bucket_url_for_pods" {
  type        = string
  description = "The bucket's address as the pods reach it, path style, e.g. http://minio.storage.svc.cluster.local:9000/docs-mirror."
}

variable "chart" {
  type        = string
  description = "The documentation platform's chart, copied into the isolated network (a directory or an internal repository's chart)."
  default     = "./charts/docs"
}

variable "docs_version" {
  type    = string
  default = null
}

# Credentials from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY; no AWS endpoint is ever contacted.
provider "aws" {
  region                      = "us-east-1"
  skip_credentials_validation = true
  skip_requesting_account_id  = true
  skip_metadata_api_check     = true
  skip_region_validation      = true
  s3_use_path_style           = true
  endpoints {
    s3 = var.s3_endpoint
  }
}

provider "helm" {
  kubernetes = {
    config_path = "~/.kube/config"
  }
}

resource "aws_s3_object" "docs" {
  bucket = var.bucket
  # Named by content: a new export is a new object at a new URL, so the chart's
  # values change and the pods roll.
  key          = "docs/${terraform_data.archive.input}.tar.gz"
  source       = var.archive_path
  source_hash  = terraform_data.archive.input # uploads again only when the content changes
  content_type = "application/gzip"

  lifecycle {
    create_before_destroy = true
  }
}

resource "helm_release" "docs" {
  name      = "docs"
  namespace = "docs"
  chart     = var.chart
  wait      = true
  atomic    = true

  # A provider function: it runs offline, without provider settings.
  values = [yamlencode(provider::docsadmin::helm_values(
    "${trimsuffix(var.bucket_url_for_pods, "/")}/${aws_s3_object.docs.key}",
    var.docs_version,
  ))]
}
