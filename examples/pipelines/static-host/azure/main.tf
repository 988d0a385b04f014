# Stage 2 of publishing to a static host: upload the files of a completed
# export to the $web container of an Azure Storage static website, one blob
# per file, assets before the pages that refer to them. Stage 1 (../export)
# exports and passes the job id.
#
# azurerm cannot overwrite a blob: a changed file (content_md5) is a new blob
# under the same name, and the provider refuses to create a blob that exists.
# So a changed file is deleted, then uploaded (a moment of 404 for its URL),
# and create_before_destroy, which would order deletions after the pages,
# cannot be used. For a site that must never answer 404 meanwhile, use the
# sync step of ../sync (azcopy sync) instead.
terraform {
  required_version = ">= 1.10"
  required_providers {
    docsadmin = { source = "docsadmin/docsadmin", version = "~> 0.1" }
    azurerm   = { source = "hashicorp/azurerm", version = "~> 4.77" } # storage_container_id
  }
}

# DOCSADMIN_BASE_URL and a DOCSADMIN_API_KEY come from the environment.
provider "docsadmin" {}

provider "azurerm" {
  features {}
}

variable "docs_job_id" {
  type        = string
  description = "Job id of the completed export: terraform output -raw job_id of stage 1."
}

variable "storage_account_id" {
  type        = string
  description = "ID of the storage account (StorageV2) that serves the site."
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
  # The static website serves /guides/ from guides/index.html but never adds
  # .html: each page is also stored under its extensionless name.
  aliases = { for route, file in local.manifest.routes : route => local.manifest.files[file] if route != "" && !endswith(route, "/") }
  # Enabling the static website creates this container.
  web = "${var.storage_account_id}/blobServices/default/containers/$web"
}

resource "azurerm_storage_account_static_website" "site" {
  storage_account_id = var.storage_account_id
  index_document     = "index.html"
  # Exports hold no 404 page today: name one only if the export has it,
  # else Azure answers with its own.
  error_404_document = contains(keys(data.docsadmin_static_site_manifest.docs.files), "404.html") ? "404.html" : null
}

resource "azurerm_storage_blob" "assets" {
  for_each = local.assets

  name                 = each.key
  storage_container_id = local.web
  type                 = "Block"
  source               = "${local.root}/${each.key}"
  content_type         = each.value.content_type
  cache_control        = each.value.cache_control
  # Hex, as the argument expects. It forces a new blob when the file
  # changes, and is known at plan time on any runner.
  content_md5 = each.value.md5

  depends_on = [azurerm_storage_account_static_website.site]
}

resource "azurerm_storage_blob" "pages" {
  for_each = local.pages

  name                 = each.key
  storage_container_id = local.web
  type                 = "Block"
  source               = "${local.root}/${each.key}"
  content_type         = each.value.content_type
  cache_control        = each.value.cache_control
  content_md5          = each.value.md5

  depends_on = [azurerm_storage_blob.assets]
}

resource "azurerm_storage_blob" "aliases" {
  for_each = local.aliases

  name                 = each.key
  storage_container_id = local.web
  type                 = "Block"
  source               = "${local.root}/${local.manifest.routes[each.key]}"
  content_type         = each.value.content_type
  cache_control        = each.value.cache_control
  content_md5          = each.value.md5

  depends_on = [azurerm_storage_blob.assets]
}
