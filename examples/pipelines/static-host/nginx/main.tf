# Serve the export with nginx on the machine that runs Terraform. The site
# lives at one path that never changes, /srv/docs/site, and nginx's root
# points at it. That path is a symbolic link which the provider makes: each
# export is unpacked and verified into a release directory of its own beside
# it, in /srv/docs/.site.docsadmin/releases/, and only once the release is
# complete is the link switched to it, with one rename(2). A new export
# changes neither the server block nor nginx: no reload. One root module, no
# per-file resources, so a new export needs no second stage.
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

variable "site_dir" {
  type        = string
  description = "The path nginx serves: a symbolic link the provider makes, which must not exist before the first apply. Its parent directory holds the releases (.site.docsadmin) too; nginx's workers must be able to read both."
  default     = "/srv/docs/site"
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

# A new export (a new job_id) updates this resource in place: the release is
# written and verified beside the one being served, then site_dir switches to
# it in one step, so every request is answered from the previous export or
# from the new one, never from neither or a mix. The previous release is kept
# until the next switch, for requests that were in flight; older ones are
# removed. No create_before_destroy is needed: the site is never replaced.
resource "docsadmin_static_site" "docs" {
  job_id          = docsadmin_static_export.docs.job_id
  directory       = var.site_dir
  expected_sha256 = docsadmin_static_export.docs.archive_sha256
}

# The server block the guide shows: extensionless URLs through try_files, the
# export's content types, Cache-Control by file. Its root is the link, the
# same path for every export, so this file changes only when its template (or
# a variable) does.
#
# nginx resolves the link on every request: it opens each file by its path,
# so a new export is served as soon as the link is switched, without a
# reload. That holds as long as the server block sets no open_file_cache:
# with it, nginx keeps the files it opened by name and looks at the path
# again only once open_file_cache_valid has passed (60 s by default; the
# check is in nginx's src/core/ngx_open_file_cache.c), so for that long it
# would keep serving the previous release. Nor may it set disable_symlinks on,
# which refuses the link.
resource "local_file" "server_block" {
  filename        = var.server_block
  file_permission = "0644"
  content = templatefile("${path.module}/docs.conf.tftpl", {
    listen      = var.listen
    server_name = var.docs_domain
    root        = abspath(docsadmin_static_site.docs.directory)
  })
}

# Reloads nginx when the server block changes, not on a new export. A reload
# is graceful: new workers read the new configuration, old ones finish their
# requests. nginx -t refuses a broken configuration before anything changes.
resource "terraform_data" "reload" {
  triggers_replace = [local_file.server_block.content_sha256]

  provisioner "local-exec" {
    command = "nginx -t && nginx -s reload"
  }
}
