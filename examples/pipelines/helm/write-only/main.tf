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

locals {
  # The values of the release that do not come from the export: chart
  # settings and non-secret values.
  static_values = {
    staticExport = {
      enabled = true
    }
  }
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

  # Terraform cannot compare write-only values, and the helm provider sends
  # set_wo only when set_wo_revision is higher than before: an upgrade for
  # any other reason (a new chart version, other values) would ship the
  # release without the link. set_wo_revision is link_revision, which rises
  # with every new link, so every other input of the release asks for a new
  # link when it changes, also back to an earlier value.
  renew_triggers = {
    release = sha256(jsonencode([var.chart_repository, var.chart_version, local.static_values]))
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

  # Helm keeps each revision's values, the write-only link included, in a
  # Secret of the release's namespace: bound how many.
  max_history = 10

  values = [yamlencode(merge(local.static_values, {
    # Changes with the archive's content only: a new export rolls the pods.
    podAnnotations = provider::docsadmin::pod_annotations(docsadmin_static_export.docs.archive_sha256)
  }))]

  set_wo = [
    { name = "staticExport.bundleUrl", value = ephemeral.docsadmin_static_export_bundle.docs.bundle_url },
  ]

  # Rises with every new link: a new export, a renewal that fell due, and a
  # change of any other input of the release (renew_triggers above). The
  # same otherwise, so an unchanged run plans nothing.
  set_wo_revision = docsadmin_static_export.docs.link_revision
}
