# Publish the documentation site to a self-hosted deployment with Helm:
# export -> link -> chart values -> helm upgrade.
#
# Run `terraform apply` on a schedule (for example hourly, and after every
# publication with the new docs_commit) so that links are renewed in time.

terraform {
  required_version = ">= 1.8" # provider functions

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

# DOCSADMIN_API_KEY and DOCSADMIN_BASE_URL configure the provider.
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

# Re-exporting: every new docs_commit exports again, in place (an update of
# this resource, with job_id unknown in the plan), checks the new archive and
# records its digest (archive_sha256). The digest is in the pod template
# (podAnnotations below), so the release is upgraded and its pods roll onto
# the new content.
#
# Renewal: links expire. When less than renew_before remains, the next plan
# shows an in-place update of bundle_url for the same export (no new export,
# same job_id and archive_sha256). Only set_sensitive changes, so the same
# apply runs a `helm upgrade` that rewrites the Secret holding the link and
# rolls nothing (with a chart that keeps the link in a Secret; see the guide
# "Deploying with Helm" for charts that put it in the pod template). A pod
# that restarts later reads the renewed link. Keep renew_before well above
# the time between two scheduled applies, so that the link in the Secret is
# always valid.
resource "docsadmin_static_export" "docs" {
  domain  = var.docs_domain
  version = var.docs_version

  triggers = {
    docs_commit = var.docs_commit
  }

  renew_before = "12h"

  # The first export waits within create; every later one, started by a new
  # docs_commit, is an update and waits within update (default 30m).
  timeouts {
    create = "90m"
    update = "90m"
  }
}

resource "helm_release" "docs" {
  name             = "docs"
  namespace        = "docs"
  create_namespace = true
  repository       = var.chart_repository
  chart            = "docs-site"
  version          = var.chart_version

  # Everything but the link. helm_release echoes values in clear into its
  # computed metadata.values, which is not marked sensitive, so the link must
  # never be part of them. A null version is sent as YAML null, which leaves
  # the chart's default in place.
  values = [
    yamlencode({
      staticExport = {
        enabled = true
        version = var.docs_version
      }
      # Changes with the archive's content only: a new export rolls the pods,
      # a renewed link does not.
      podAnnotations = provider::docsadmin::pod_annotations(docsadmin_static_export.docs.archive_sha256)
    }),
  ]

  # The link. set_sensitive entries are cloaked in metadata.values and hidden
  # in plans; the helm_release's state still holds them (see write-only/ to
  # avoid that), and so does every release record Helm keeps in the cluster.
  set_sensitive = [
    {
      name  = "staticExport.bundleUrl"
      value = docsadmin_static_export.docs.bundle_url
    },
  ]

  # Helm keeps each revision's values, link included, in a Secret of the
  # release's namespace; the default keeps every revision forever. Ten
  # revisions are enough to roll back and bound how many old links are kept.
  max_history = 10

  # Wait for the rollout, and roll back when it fails so that the old pods
  # keep serving.
  wait   = true
  atomic = true
}

output "bundle_expires_at" {
  description = "When the link the pods use stops working; the next apply after expiry minus renew_before renews it."
  value       = docsadmin_static_export.docs.bundle_expires_at
}

output "archive_sha256" {
  description = "SHA-256 of the archive the pods serve; compare it with a download (see the guide's runbook)."
  value       = docsadmin_static_export.docs.archive_sha256
}

output "bundle_url" {
  description = "The link itself, for checks by hand: `URL=$(terraform output -raw bundle_url)`. Never print it."
  value       = docsadmin_static_export.docs.bundle_url
  sensitive   = true
}
