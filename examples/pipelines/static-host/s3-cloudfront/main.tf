# Stage 2 of publishing to a static host: upload the files of a completed
# export to an S3 bucket served by CloudFront, one object per file, assets
# before the pages that refer to them, stale files deleted last. Stage 1
# (../export) exports and passes the job id.
terraform {
  required_version = ">= 1.10"
  required_providers {
    docsadmin = { source = "docsadmin/docsadmin", version = "~> 0.1" }
    aws       = { source = "hashicorp/aws", version = "~> 6.0" }
  }
}

# DOCSADMIN_BASE_URL and a DOCSADMIN_API_KEY come from the environment.
provider "docsadmin" {}

provider "aws" {
  region = var.region
}

variable "docs_job_id" {
  type        = string
  description = "Job id of the completed export: terraform output -raw job_id of stage 1."
}

variable "region" {
  type    = string
  default = "eu-west-1"
}

variable "site_bucket" {
  type        = string
  description = "Name of the bucket that holds the site; only CloudFront reads it."
}

# The export's files, read during plan: the job id is known, so the plan
# lists every object to upload, change or delete, even for an export started
# a moment ago.
data "docsadmin_static_site_manifest" "docs" {
  job_id = var.docs_job_id
}

# Downloads the archive once, verifies it, and unpacks it. On a fresh runner
# the tree is restored in place with one download; the manifest stays the
# same, so no upload changes.
resource "docsadmin_static_site" "docs" {
  job_id          = var.docs_job_id
  directory       = "${path.module}/dist/site"
  expected_sha256 = data.docsadmin_static_site_manifest.docs.archive_sha256
}

locals {
  root = docsadmin_static_site.docs.directory
  # Files that refer to others (pages, their RSC payloads, the sitemap, the
  # search index) go up after everything they may refer to.
  refers = "\\.(html|txt|xml|json)$"
  assets = { for path, f in data.docsadmin_static_site_manifest.docs.files : path => f if !can(regex(local.refers, path)) }
  pages  = { for path, f in data.docsadmin_static_site_manifest.docs.files : path => f if can(regex(local.refers, path)) }
}

resource "aws_s3_bucket" "site" {
  bucket = var.site_bucket
}

resource "aws_s3_object" "assets" {
  for_each = local.assets

  bucket        = aws_s3_bucket.site.id
  key           = each.key
  source        = "${local.root}/${each.key}"
  source_hash   = each.value.sha256 # in state only: uploads again when the file changes
  content_type  = each.value.content_type
  cache_control = each.value.cache_control

  # A file gone from the export is deleted only after the resources that
  # depend on this one (the pages) have been uploaded: see ../README.md.
  lifecycle {
    create_before_destroy = true
  }
}

resource "aws_s3_object" "pages" {
  for_each = local.pages

  bucket        = aws_s3_bucket.site.id
  key           = each.key
  source        = "${local.root}/${each.key}"
  source_hash   = each.value.sha256
  content_type  = each.value.content_type
  cache_control = each.value.cache_control

  lifecycle {
    create_before_destroy = true
  }

  # Every asset is in place before the first page that may refer to it.
  depends_on = [aws_s3_object.assets]
}

# Replaced with every export, after every page: a removed page is deleted
# only after this, so after every page that linked to it has been replaced.
resource "terraform_data" "published" {
  triggers_replace = [data.docsadmin_static_site_manifest.docs.archive_sha256]

  lifecycle {
    create_before_destroy = true
  }

  depends_on = [aws_s3_object.pages]
}

# /guides/getting-started -> guides/getting-started.html, /guides and
# /guides/ -> guides/index.html: the bucket holds files, the export's URLs
# have no extension. The folders with an index page come from the routes of
# the manifest (a function's code is limited to 10 KB).
resource "aws_cloudfront_function" "rewrite" {
  name    = "docs-extensionless-urls"
  runtime = "cloudfront-js-2.0"
  comment = "Serves /path from path.html and /dir from dir/index.html"
  publish = true
  code = templatefile("${path.module}/rewrite.js.tftpl", {
    directories = {
      for route, file in data.docsadmin_static_site_manifest.docs.routes : route => true
      if route != "" && file == "${route}/index.html"
    }
  })
}

resource "aws_cloudfront_origin_access_control" "site" {
  name                              = "docs-site"
  origin_access_control_origin_type = "s3"
  signing_behavior                  = "always"
  signing_protocol                  = "sigv4"
}

# Honours each object's Cache-Control (between one second and a year).
data "aws_cloudfront_cache_policy" "optimized" {
  name = "Managed-CachingOptimized"
}

resource "aws_cloudfront_distribution" "site" {
  enabled             = true
  is_ipv6_enabled     = true
  default_root_object = "index.html"

  origin {
    domain_name              = aws_s3_bucket.site.bucket_regional_domain_name
    origin_id                = "site"
    origin_access_control_id = aws_cloudfront_origin_access_control.site.id
  }

  default_cache_behavior {
    target_origin_id       = "site"
    viewer_protocol_policy = "redirect-to-https"
    allowed_methods        = ["GET", "HEAD"]
    cached_methods         = ["GET", "HEAD"]
    cache_policy_id        = data.aws_cloudfront_cache_policy.optimized.id
    compress               = true

    function_association {
      event_type   = "viewer-request"
      function_arn = aws_cloudfront_function.rewrite.arn
    }
  }

  restrictions {
    geo_restriction {
      restriction_type = "none"
      locations        = []
    }
  }

  # For docs.example.com itself: aliases, and an ACM certificate in us-east-1.
  viewer_certificate {
    cloudfront_default_certificate = true
  }
}

# Only this distribution reads the bucket.
data "aws_iam_policy_document" "site" {
  statement {
    actions   = ["s3:GetObject"]
    resources = ["${aws_s3_bucket.site.arn}/*"]

    principals {
      type        = "Service"
      identifiers = ["cloudfront.amazonaws.com"]
    }

    condition {
      test     = "StringEquals"
      variable = "AWS:SourceArn"
      values   = [aws_cloudfront_distribution.site.arn]
    }
  }
}

resource "aws_s3_bucket_policy" "site" {
  bucket = aws_s3_bucket.site.id
  policy = data.aws_iam_policy_document.site.json
}

output "url" {
  value = "https://${aws_cloudfront_distribution.site.domain_name}/"
}
