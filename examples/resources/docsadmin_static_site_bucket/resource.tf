# Copying this? Declare the provider's source once per module, as on the
# provider page, or terraform init looks for hashicorp/docsadmin:
#   terraform { required_providers { docsadmin = { source = "docsadmin/docsadmin" } } }

variable "docs_commit" {
  type = string
}

resource "docsadmin_static_export" "docs" {
  domain   = "docs.example.com"
  triggers = { docs_commit = var.docs_commit }
}

# The export's site, verified and published into an S3 bucket under docs/:
# only the files that differ are uploaded, assets before the pages that
# load them, and what the new export lacks is deleted last. Credentials come
# from the AWS SDK's chain (AWS_PROFILE, AWS_ACCESS_KEY_ID, web identity),
# never from the configuration.
resource "docsadmin_static_site_bucket" "docs" {
  job_id          = docsadmin_static_export.docs.job_id
  expected_sha256 = docsadmin_static_export.docs.archive_sha256
  prefix          = "docs"

  s3 = {
    bucket = "docs-site-example"
    region = "eu-west-1"
    # For an S3-compatible store (MinIO, R2, versitygw):
    # endpoint       = "https://minio.internal.example.com"
    # use_path_style = true
  }

  # A new export that drops more files than this is refused before
  # anything is written.
  max_deletes = 256

  timeouts {
    create = "45m"
    update = "45m"
  }
}

# Cloud Storage and Azure Blob take the same arguments with their own block:
#   gcs   = { bucket = "docs-site-example" }
#   azure = { container = "$web", account = "docsexample" }
