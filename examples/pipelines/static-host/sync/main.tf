# The sync variant, for sites too large for a resource per file: Terraform
# exports, downloads, verifies and unpacks the archive, then one step syncs the
# verified tree to the bucket (sync-s3.sh): assets first, then new pages,
# then the pages that may link to them, then deletions, stale pages before
# their assets. Terraform tracks the export and the tree, not each object:
# the files' digests, types and cache policies are in the manifest file the
# provider writes beside the release, not in state, so plans stay small
# whatever the site's size and a new export needs no second stage.
terraform {
  required_version = ">= 1.10"
  required_providers {
    docsadmin = { source = "docsadmin/docsadmin", version = "~> 0.1" }
    aws       = { source = "hashicorp/aws", version = "~> 6.0" }
  }
}

# DOCSADMIN_BASE_URL and a write-scoped DOCSADMIN_API_KEY come from the environment.
provider "docsadmin" {}

provider "aws" {
  region = var.region
}

variable "docs_domain" {
  type    = string
  default = "docs.example.com"
}

variable "docs_commit" {
  type        = string
  description = "Commit of the docs repository that was just published; a new value exports again."
}

variable "region" {
  type    = string
  default = "eu-west-1"
}

variable "site_bucket" {
  type        = string
  description = "Bucket served by CloudFront, as in ../s3-cloudfront (its function rewrites extensionless URLs)."
}

data "aws_s3_bucket" "site" {
  bucket = var.site_bucket
}

resource "docsadmin_static_export" "docs" {
  domain   = var.docs_domain
  triggers = { docs_commit = var.docs_commit }
}

resource "docsadmin_static_site" "docs" {
  job_id          = docsadmin_static_export.docs.job_id
  directory       = "${path.module}/dist/site"
  expected_sha256 = docsadmin_static_export.docs.archive_sha256
}

# Once per export: the step uploads only what differs, so running it again
# is cheap. A restore of a damaged tree publishes the same files, with the
# same manifest, and does not sync again.
resource "terraform_data" "sync" {
  triggers_replace = [docsadmin_static_site.docs.archive_sha256, docsadmin_static_site.docs.manifest_sha256]

  provisioner "local-exec" {
    command = "${path.module}/sync-s3.sh"
    # The release and its manifest, not the link: the sync reads a tree
    # that no later publication can switch under it. The manifest maps each
    # file to its md5, content_type and cache_control.
    environment = {
      SITE     = docsadmin_static_site.docs.release_directory
      MANIFEST = docsadmin_static_site.docs.manifest_file
      BUCKET   = data.aws_s3_bucket.site.id
    }
  }
}
