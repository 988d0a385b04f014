# Demonstrates docsadmin_static_export: a single apply starts a static export
# of a documentation site, waits until the export job completes, and generates
# a presigned, time-limited link to the bundle (a .tar.gz of static HTML, CSS,
# JavaScript and assets). Destroy only forgets the job: the API cannot delete
# exports.
#
# `make demo` (go run ./internal/cmd/demo) runs this configuration against an
# in-process mock of the API, with the locally built provider installed by
# terraform init from a filesystem mirror; the demo asks for the build's exact
# version in an override file (docsadmin_version_override.tf).

terraform {
  required_version = ">= 1.0"

  required_providers {
    docsadmin = {
      source  = "docsadmin/docsadmin"
      version = "~> 0.1"
    }
  }
}

# Empty on purpose: base_url, api_key and project_id come from the
# DOCSADMIN_BASE_URL, DOCSADMIN_API_KEY and DOCSADMIN_PROJECT_ID environment
# variables, so no secret lives in the configuration. The project is used
# when the API speaks the project-scoped revision of static export: the
# provider finds out which revision the API speaks.
provider "docsadmin" {}

resource "docsadmin_static_export" "docs" {
  domain = "docs.example.com"
}

output "job_id" {
  description = "Identifier of the export job."
  value       = docsadmin_static_export.docs.job_id
}

output "api_revision" {
  description = "The revision of the static export API that exported it: domain or project."
  value       = docsadmin_static_export.docs.api_revision
}

output "status" {
  description = "Status of the export job; completed after a successful apply."
  value       = docsadmin_static_export.docs.status
}

output "page_count" {
  description = "Number of pages exported; null in the project-scoped revision, which does not report it."
  value       = docsadmin_static_export.docs.page_count
}

output "bundle_size_bytes" {
  description = "Size of the bundle archive, in bytes."
  value       = docsadmin_static_export.docs.bundle_size_bytes
}

output "bundle_expires_at" {
  description = "When bundle_url stops working (RFC 3339)."
  value       = docsadmin_static_export.docs.bundle_expires_at
}

# The link grants access to the bundle until it expires, so it is sensitive:
# plans and apply output show "(sensitive value)". Read it on purpose with
# `terraform output -raw bundle_url` (or from `terraform output -json`), for
# example to feed a deployment's staticExport.bundleUrl.
output "bundle_url" {
  description = "Presigned link to the bundle archive."
  value       = docsadmin_static_export.docs.bundle_url
  sensitive   = true
}
