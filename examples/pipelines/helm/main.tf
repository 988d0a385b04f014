# Publish the documentation site to a self-hosted deployment with Helm:
# export -> link -> chart values -> helm upgrade.
#
# Run `terraform apply` on a schedule (for example hourly, and after every
# publication with the new docs_commit) so that links are renewed in time.

terraform {
  required_version = ">= 1.8" # provider functions

  required_providers {
    docsadmin = {
      source = "docsadmin/docsadmin"
    }
    helm = {
      source  = "hashicorp/helm"
      version = "~> 3.0"
    }
  }
}

# DOCSADMIN_API_KEY and DOCSADMIN_BASE_URL configure the provider.
provider "docsadmin" {}

provider "helm" {
  kubernetes = {
    config_path = var.kubeconfig
  }
}

variable "kubeconfig" {
  type        = string
  description = "Path of the kubeconfig file of the cluster that serves the documentation."
  default     = "~/.kube/config"
}

variable "docs_domain" {
  type        = string
  description = "Hostname of the documentation site to export."
  default     = "docs.example.com"
}

variable "docs_commit" {
  type        = string
  description = "Commit of the docs repository that was just published; a new value exports again."
}

variable "docs_version" {
  type        = string
  description = "Export version to pin in the chart (staticExport.version); null serves the bundle's own version."
  default     = null
}

variable "chart_repository" {
  type        = string
  description = "Helm repository (or OCI registry) of the documentation platform's self-hosted chart."
}

variable "chart_version" {
  type        = string
  description = "Version of the chart to install."
}

# Re-exporting: every new docs_commit replaces this resource, which starts a
# new export and generates a link to it. The link changes, so the release
# below is upgraded and its pods roll onto the new content.
#
# Renewal: links expire. When less than renew_before remains, the next plan
# shows an in-place update of bundle_url for the same export (no new export).
# The new link changes the release's values, so the same apply runs a
# `helm upgrade` that rolls the pods onto the new link while the old one still
# works. Pods fetch the bundle on startup only, and one that restarts after its
# link expired cannot fetch it: keep the renewal window (the smaller of
# renew_before and half the link's lifetime) well above the time between two
# scheduled applies.
resource "docsadmin_static_export" "docs" {
  domain  = var.docs_domain
  version = var.docs_version

  triggers = {
    docs_commit = var.docs_commit
  }

  renew_before = "12h"

  timeouts {
    create = "90m"
  }
}

resource "helm_release" "docs" {
  name             = "docs"
  namespace        = "docs"
  create_namespace = true
  repository       = var.chart_repository
  chart            = "docs-site"
  version          = var.chart_version

  # staticExport.enabled, staticExport.bundleUrl and, when set,
  # staticExport.version. The link is sensitive: Terraform hides the values in
  # plans, but the release's state holds them (see write-only/ to avoid that).
  values = [
    yamlencode(provider::docsadmin::helm_values(docsadmin_static_export.docs.bundle_url, var.docs_version)),
  ]

  # A new link only helps once the pods have restarted with it: wait for the
  # rollout, and roll back when it fails so that the old pods keep serving.
  wait   = true
  atomic = true
}

output "bundle_expires_at" {
  description = "When the link the pods use stops working; the next apply after expiry minus renew_before renews it."
  value       = docsadmin_static_export.docs.bundle_expires_at
}
