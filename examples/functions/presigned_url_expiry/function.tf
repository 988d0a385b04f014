# Copying this? Declare the provider's source once per module, as on the
# provider page, or terraform init looks for hashicorp/docsadmin:
#   terraform { required_providers { docsadmin = { source = "docsadmin/docsadmin" } } }

# When does a presigned link stop working? Works for S3 (X-Amz-Date +
# X-Amz-Expires) and GCS (X-Goog-Date + X-Goog-Expires) links.
output "bundle_link_expires_at" {
  # "2026-11-22T09:00:00Z"
  value = provider::docsadmin::presigned_url_expiry(
    "https://docs-bundles.s3.amazonaws.com/se_3f9a2c1b8e7d4a06/bundle.tar.gz?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20261122T080000Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Signature=0123abcd"
  )
}

# For a link that comes from elsewhere, such as a mirror in the cluster's own
# object storage, warn on every plan when it expires within a day.
variable "mirrored_bundle_url" {
  type      = string
  sensitive = true
}

check "mirrored_link_lifetime" {
  assert {
    condition     = timecmp(provider::docsadmin::presigned_url_expiry(var.mirrored_bundle_url), timeadd(plantimestamp(), "24h")) > 0
    error_message = "The mirrored bundle link expires within 24 hours: mirror the archive again and pass a new link."
  }
}
