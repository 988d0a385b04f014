# Stage 2 of publishing to a static host: publish the site of a completed
# export into an S3 bucket served by CloudFront, with
# docsadmin_static_site_bucket. Stage 1 (../export) exports and passes the
# job id.
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

# The export's site, verified and published into the bucket by the provider
# itself: one listing, only the files that differ uploaded (assets, then new
# pages, then changed pages, then index.html), what the export dropped
# deleted last, each object with the manifest's Content-Type and
# Cache-Control. It writes and deletes only the objects it wrote, listed in
# .docsadmin/site.json. Credentials: the AWS SDK's chain (the runner's role).
resource "docsadmin_static_site_bucket" "docs" {
  job_id = var.docs_job_id
  s3 = {
    bucket = aws_s3_bucket.site.id
    region = var.region
  }

  timeouts {
    create = "45m"
    update = "45m"
  }
}

# The export's routes, for the CloudFront Function's list of folders: read
# once per export (the manifest is cached), no file is written.
data "docsadmin_static_site_manifest" "docs" {
  job_id = var.docs_job_id
}

resource "aws_s3_bucket" "site" {
  bucket = var.site_bucket
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
