# Stage 2 of publishing to a static host: publish the site of a completed
# export into a Cloud Storage bucket configured as a website, with
# docsadmin_static_site_bucket. Stage 1 (../export) exports and passes the
# job id.
terraform {
  required_version = ">= 1.10"
  required_providers {
    docsadmin = { source = "docsadmin/docsadmin", version = "~> 0.1" }
    google    = { source = "hashicorp/google", version = "~> 6.0" }
  }
}

# DOCSADMIN_BASE_URL and a DOCSADMIN_API_KEY come from the environment.
provider "docsadmin" {}

provider "google" {
  project = var.project
}

variable "docs_job_id" {
  type        = string
  description = "Job id of the completed export: terraform output -raw job_id of stage 1."
}

variable "project" {
  type = string
}

variable "site_bucket" {
  type        = string
  description = "Name of the website bucket, such as docs.example.com (a domain-named bucket needs the domain verified)."
}

# A website bucket: /guides/ serves guides/index.html (main_page_suffix);
# 404.html answers unknown paths when the export has one.
resource "google_storage_bucket" "site" {
  name                        = var.site_bucket
  location                    = "EU"
  uniform_bucket_level_access = true

  website {
    main_page_suffix = "index.html"
    not_found_page   = "404.html"
  }
}

resource "google_storage_bucket_iam_member" "public" {
  bucket = google_storage_bucket.site.name
  role   = "roles/storage.objectViewer"
  member = "allUsers"
}

# The export's site, verified and published by the provider itself: only
# the files that differ are uploaded, assets before the pages that load
# them, and each page is also stored under its extensionless URL
# (guides/getting-started), which Cloud Storage never maps to .html.
# Credentials: Application Default Credentials (workload identity on the
# runner, or GOOGLE_APPLICATION_CREDENTIALS).
resource "docsadmin_static_site_bucket" "docs" {
  job_id = var.docs_job_id
  gcs = {
    bucket = google_storage_bucket.site.name
  }

  timeouts {
    create = "45m"
    update = "45m"
  }
}

output "url" {
  value = "https://storage.googleapis.com/${google_storage_bucket.site.name}/index.html"
}
