# Stage 2 of publishing to a static host: upload the files of a completed
# export to a Cloud Storage bucket configured as a website, one object per
# file, assets before the pages that refer to them, stale files deleted last.
# Stage 1 (../export) exports and passes the job id.
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

# The export's files and routes, read during plan (see ../s3-cloudfront).
data "docsadmin_static_site_manifest" "docs" {
  job_id = var.docs_job_id
}

resource "docsadmin_static_site" "docs" {
  job_id          = var.docs_job_id
  directory       = "${path.module}/dist/site"
  expected_sha256 = data.docsadmin_static_site_manifest.docs.archive_sha256
}

locals {
  root     = docsadmin_static_site.docs.directory
  manifest = data.docsadmin_static_site_manifest.docs
  refers   = "\\.(html|txt|xml|json)$"
  assets   = { for path, f in local.manifest.files : path => f if !can(regex(local.refers, path)) }
  pages    = { for path, f in local.manifest.files : path => f if can(regex(local.refers, path)) }
  # A website bucket serves /guides/ from guides/index.html (main_page_suffix)
  # but never adds .html: each page is also stored under its extensionless
  # name, guides/getting-started beside guides/getting-started.html.
  aliases = { for route, file in local.manifest.routes : route => local.manifest.files[file] if route != "" && !endswith(route, "/") }
}

resource "google_storage_bucket" "site" {
  name                        = var.site_bucket
  location                    = "EU"
  uniform_bucket_level_access = true

  website {
    main_page_suffix = "index.html"
    # Exports hold no 404 page today: name one only if the export has it,
    # else Cloud Storage answers with its own.
    not_found_page = contains(keys(data.docsadmin_static_site_manifest.docs.files), "404.html") ? "404.html" : null
  }
}

# A public website: everyone may read the objects.
resource "google_storage_bucket_iam_member" "public" {
  bucket = google_storage_bucket.site.name
  role   = "roles/storage.objectViewer"
  member = "allUsers"
}

resource "google_storage_bucket_object" "assets" {
  for_each = local.assets

  bucket        = google_storage_bucket.site.name
  name          = each.key
  source        = "${local.root}/${each.key}"
  content_type  = each.value.content_type
  cache_control = each.value.cache_control
  # Base64, as the argument expects. Uploads again when the file changes,
  # known at plan time on any runner. (While source_md5hash is set, the
  # provider ignores detect_md5hash, which compares with a file on disk.)
  source_md5hash = each.value.md5_base64

  # create_before_destroy orders deletions after the uploads that depend on
  # them (../README.md). content_type and cache_control force a new object
  # in the google provider, and a replacement would then upload first and
  # delete by name afterwards, removing the object it just wrote: they are
  # left alone here (a file's type does not change under its name).
  lifecycle {
    create_before_destroy = true
    ignore_changes        = [content_type, cache_control]
  }
}

resource "google_storage_bucket_object" "pages" {
  for_each = local.pages

  bucket         = google_storage_bucket.site.name
  name           = each.key
  source         = "${local.root}/${each.key}"
  content_type   = each.value.content_type
  cache_control  = each.value.cache_control
  source_md5hash = each.value.md5_base64

  lifecycle {
    create_before_destroy = true
    ignore_changes        = [content_type, cache_control]
  }

  depends_on = [google_storage_bucket_object.assets]
}

resource "google_storage_bucket_object" "aliases" {
  for_each = local.aliases

  bucket         = google_storage_bucket.site.name
  name           = each.key
  source         = "${local.root}/${local.manifest.routes[each.key]}"
  content_type   = each.value.content_type
  cache_control  = each.value.cache_control
  source_md5hash = each.value.md5_base64

  lifecycle {
    create_before_destroy = true
    ignore_changes        = [content_type, cache_control]
  }

  depends_on = [google_storage_bucket_object.assets]
}

# Replaced with every export, after every page: a removed page is deleted
# only after every page that linked to it has been replaced (../README.md).
resource "terraform_data" "published" {
  triggers_replace = [local.manifest.archive_sha256]

  lifecycle {
    create_before_destroy = true
  }

  depends_on = [google_storage_bucket_object.pages, google_storage_bucket_object.aliases]
}

output "url" {
  value = "https://storage.googleapis.com/${google_storage_bucket.site.name}/index.html"
}
