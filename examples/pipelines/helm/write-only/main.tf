# The same pipeline, with the link handed to the chart through a write-only
# argument: it reaches the cluster but is stored in neither the plan nor the
# helm_release's state. Needs Terraform 1.11 or later (write-only arguments)
# and version 3 of the helm provider (set_wo).

terraform {
  required_version = ">= 1.11"

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

provider "docsadmin" {}

provider "helm" {
  kubernetes = {
    config_path = var.kubeconfig
  }
}

variable "kubeconfig" {
  type    = string
  default = "~/.kube/config"
}

variable "docs_commit" {
  type        = string
  description = "Commit of the docs repository that was just published; a new value exports again."
}

variable "chart_repository" {
  type = string
}

variable "chart_version" {
  type = string
}

# Starts the export and waits for it; a new docs_commit exports again. Its
# bundle_expires_at tells when a new link is due (renew_before). The resource
# keeps its own link in its state; to keep every link out of state, start
# exports outside Terraform and pass the job id to the ephemeral resource.
resource "docsadmin_static_export" "docs" {
  domain = "docs.example.com"

  triggers = {
    docs_commit = var.docs_commit
  }

  renew_before = "12h"
}

# A fresh link to the same export, generated during this run only.
ephemeral "docsadmin_static_export_bundle" "docs" {
  job_id = docsadmin_static_export.docs.job_id
}

resource "helm_release" "docs" {
  name             = "docs"
  namespace        = "docs"
  create_namespace = true
  repository       = var.chart_repository
  chart            = "docs-site"
  version          = var.chart_version
  wait             = true
  atomic           = true

  set = [
    { name = "staticExport.enabled", value = "true" },
  ]

  set_wo = [
    { name = "staticExport.bundleUrl", value = ephemeral.docsadmin_static_export_bundle.docs.bundle_url },
  ]

  # Terraform cannot compare write-only values, so the release is upgraded
  # with a new link only when this number changes. Deriving it from the
  # export's link expiry changes it after every re-export and every renewal,
  # and each time the upgrade rolls the pods onto a link fresh from this run.
  # Where the API reports no expiry, the export's creation time (one value per
  # export) stands in.
  set_wo_revision = tonumber(formatdate("YYYYMMDDhhmmss", coalesce(
    docsadmin_static_export.docs.bundle_expires_at,
    docsadmin_static_export.docs.created_at,
  )))
}
