# Serve the export with nginx on the machine that runs Terraform: each export
# is unpacked and verified into a directory of its own, nginx's server block
# is rewritten to point at it and reloaded, and the previous directory is
# removed only after that. One root module, no per-file resources, so a new
# export needs no second stage.
terraform {
  required_version = ">= 1.10"
  required_providers {
    docsadmin = { source = "docsadmin/docsadmin", version = "~> 0.1" }
    local     = { source = "hashicorp/local", version = "~> 2.5" }
  }
}

# DOCSADMIN_BASE_URL and a write-scoped DOCSADMIN_API_KEY come from the environment.
provider "docsadmin" {}

variable "docs_domain" {
  type    = string
  default = "docs.example.com"
}

variable "docs_commit" {
  type        = string
  description = "Commit of the docs repository that was just published; a new value exports again."
}

variable "releases_dir" {
  type        = string
  description = "Directory that holds one unpacked export per content digest; nginx's workers must be able to read it."
  default     = "/srv/docs/releases"
}

variable "server_block" {
  type        = string
  description = "Where nginx reads the server block (its nginx.conf includes conf.d/*.conf in the http block)."
  default     = "/etc/nginx/conf.d/docs.conf"
}

variable "listen" {
  type    = string
  default = "80"
}

resource "docsadmin_static_export" "docs" {
  domain   = var.docs_domain
  triggers = { docs_commit = var.docs_commit }
}

# Named by content: a new export is unpacked beside the one being served.
resource "docsadmin_static_site" "docs" {
  job_id          = docsadmin_static_export.docs.job_id
  directory       = "${var.releases_dir}/${docsadmin_static_export.docs.archive_sha256}"
  expected_sha256 = docsadmin_static_export.docs.archive_sha256

  # The previous export's directory is removed only after nginx has been
  # reloaded onto the new one.
  lifecycle {
    create_before_destroy = true
  }
}

# The server block the guide shows: extensionless URLs through try_files, the
# export's content types, Cache-Control by file.
resource "local_file" "server_block" {
  filename        = var.server_block
  file_permission = "0644"
  content = templatefile("${path.module}/docs.conf.tftpl", {
    listen      = var.listen
    server_name = var.docs_domain
    root        = abspath(docsadmin_static_site.docs.directory)
  })
}

# A reload is graceful: new workers serve the new directory, old ones finish
# their requests from the old one. nginx -t refuses a broken configuration
# before anything changes.
resource "terraform_data" "reload" {
  triggers_replace = [local_file.server_block.content_sha256]

  provisioner "local-exec" {
    command = "nginx -t && nginx -s reload"
  }
}
