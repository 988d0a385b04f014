# The isolated side of an air-gapped delivery: check the archive that crossed
# the gap against the digest that crossed with it, before anything uses it.

variable "archive_path" {
  type        = string
  description = "The archive as it arrived."
  default     = "transfer/docs-bundle.tar.gz"
}

variable "checksum_path" {
  type        = string
  description = "The checksum file written on the connected side (sha256sum format)."
  default     = "transfer/docs-bundle.tar.gz.sha256"
}

locals {
  # The first field of "<sha256>  docs-bundle.tar.gz".
  expected_sha256 = lower(regex("^\\s*([0-9A-Fa-f]{64})\\s", file(var.checksum_path))[0])
}

resource "terraform_data" "archive" {
  input = local.expected_sha256

  lifecycle {
    precondition {
      # filesha256 reads the whole file into memory: for archives of several
      # GiB, check with `sha256sum -c` before running Terraform as well.
      condition     = filesha256(var.archive_path) == local.expected_sha256
      error_message = "The SHA-256 of ${var.archive_path} is not the one in ${var.checksum_path}: the archive was damaged or replaced in transfer. Transfer it again; do not deploy it."
    }
  }
}
