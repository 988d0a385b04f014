# The same pipeline, with the link handed to the chart through a write-only
# argument: it reaches the cluster but is stored in neither the plan nor the
# helm_release's state. Needs Terraform 1.11 or later (write-only arguments)
# and version 3 of the helm provider (set_wo).

terraform {
  required_version = ">= 1.11"

  required_providers {
    docsadmin = {
      source  = "docsadmin/docsadmin"
      version = "~> 0.1"
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
  type        = string
  description = "Path of the kubeconfig file of the cluster that serves the documentation (in CI, a file written from the secret store)."
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
  domain = var.docs_domain

  triggers = {
    docs_commit = var.docs_commit
  }

  renew_before = "12h"
}

# A fresh link to the same export, generated during this run only.
ephemeral "docsadmin_static_export_bundle" "docs" {
  job_id = docsadmin_static_export.docs.job_id
}

locals {
  # Every value of the release except the link: chart settings and the
  # non-secret values.
  release_values = yamlencode({
    staticExport = {
      enabled = true
    }
    # Changes with the archive's content only: a new export rolls the pods.
    podAnnotations = provider::docsadmin::pod_annotations(docsadmin_static_export.docs.archive_sha256)
  })
}

# The revision of the write-only values. Terraform cannot compare write-only
# values, and the helm provider applies set_wo only when set_wo_revision is
# higher than before: an upgrade for any other reason (a new chart version,
# other values) would ship the release without the link. So the revision
# changes whenever any input of the release changes, and never goes down.
#
# terraform_data is replaced whenever one of triggers_replace changes, and
# then records the plan's timestamp; ignore_changes keeps the recorded one
# otherwise (plantimestamp() differs on every plan). Reading `input`, not
# `output`, makes the new revision known in the plan.
resource "terraform_data" "release_revision" {
  triggers_replace = {
    chart_repository = var.chart_repository
    chart_version    = var.chart_version
    values           = local.release_values
    # A new export, and each renewal of its link.
    job_id            = docsadmin_static_export.docs.job_id
    archive_sha256    = docsadmin_static_export.docs.archive_sha256
    created_at        = docsadmin_static_export.docs.created_at
    bundle_expires_at = docsadmin_static_export.docs.bundle_expires_at
  }

  input = plantimestamp()

  lifecycle {
    ignore_changes = [input]
  }
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

  # Helm keeps each revision's values, the write-only link included, in a
  # Secret of the release's namespace: bound how many.
  max_history = 10

  values = [local.release_values]

  set_wo = [
    { name = "staticExport.bundleUrl", value = ephemeral.docsadmin_static_export_bundle.docs.bundle_url },
  ]

  # The time of the plan that last changed an input, as a number such as
  # 20261123061238: higher after every change, the same otherwise.
  set_wo_revision = tonumber(formatdate("YYYYMMDDhhmmss", terraform_data.release_revision.input))
}
