# Without a bucket: an nginx inside the cluster serves the archive from a
# volume, and a Kubernetes Job fills the volume once per export, checking the
# archive against the digest the provider recorded when the export completed.
# Pods then fetch the bundle from a URL that never expires.
terraform {
  required_version = ">= 1.10"
  required_providers {
    docsadmin  = { source = "docsadmin/docsadmin", version = "~> 0.1" }
    kubernetes = { source = "hashicorp/kubernetes", version = "~> 2.0" }
    helm       = { source = "hashicorp/helm", version = "~> 3.0" }
  }
}

# DOCSADMIN_BASE_URL and a write-scoped DOCSADMIN_API_KEY come from the environment.
provider "docsadmin" {}

provider "kubernetes" {
  config_path = "~/.kube/config"
}

provider "helm" {
  kubernetes = {
    config_path = "~/.kube/config"
  }
}

variable "docs_commit" {
  type        = string
  description = "Commit of the docs repository that was just published."
}

variable "namespace" {
  type    = string
  default = "docs"
}

resource "docsadmin_static_export" "docs" {
  domain   = "docs.example.com"
  triggers = { docs_commit = var.docs_commit }
}

locals {
  digest = docsadmin_static_export.docs.archive_sha256
  # Named by content: a new export is a new file at a new URL, so the chart's
  # values change and the pods roll onto it.
  object = "${local.digest}.tar.gz"
}

# Shared by the Job that writes and the nginx that reads: ReadWriteMany needs a
# storage class that offers it (NFS, CephFS, EFS, Azure Files, Filestore...).
resource "kubernetes_persistent_volume_claim_v1" "mirror" {
  metadata {
    name      = "docs-mirror"
    namespace = var.namespace
  }
  spec {
    access_modes = ["ReadWriteMany"]
    resources {
      requests = { storage = "2Gi" }
    }
  }
  wait_until_bound = false
}

resource "kubernetes_deployment_v1" "mirror" {
  metadata {
    name      = "docs-mirror"
    namespace = var.namespace
  }
  spec {
    replicas = 2
    selector {
      match_labels = { app = "docs-mirror" }
    }
    template {
      metadata {
        labels = { app = "docs-mirror" }
      }
      spec {
        container {
          name  = "nginx"
          image = "nginx:1.27-alpine"
          port {
            container_port = 80
          }
          volume_mount {
            name       = "mirror"
            mount_path = "/usr/share/nginx/html"
            read_only  = true
          }
        }
        volume {
          name = "mirror"
          persistent_volume_claim {
            claim_name = kubernetes_persistent_volume_claim_v1.mirror.metadata[0].name
          }
        }
      }
    }
  }
}

resource "kubernetes_service_v1" "mirror" {
  metadata {
    name      = "docs-mirror"
    namespace = var.namespace
  }
  spec {
    selector = { app = "docs-mirror" }
    port {
      port        = 80
      target_port = 80
    }
  }
}

# The presigned link reaches the Job through a Secret, not its spec.
resource "kubernetes_secret_v1" "link" {
  metadata {
    name      = "docs-mirror-link-${substr(local.digest, 0, 12)}"
    namespace = var.namespace
  }
  data = {
    url = docsadmin_static_export.docs.bundle_url
  }
}

# One Job per export (its name carries the digest): download, compare with the
# digest, then move into place, keeping the three newest archives so that pods
# still rolling off an older export can fetch it.
resource "kubernetes_job_v1" "fetch" {
  metadata {
    name      = "docs-mirror-fetch-${substr(local.digest, 0, 12)}"
    namespace = var.namespace
  }
  spec {
    backoff_limit = 3
    template {
      metadata {}
      spec {
        restart_policy = "Never"
        container {
          name  = "fetch"
          image = "curlimages/curl:8.11.1"
          command = ["/bin/sh", "-ec", <<-EOT
            curl -fsS --retry 3 -o "/srv/.$OBJECT.part" "$BUNDLE_URL"
            echo "$SHA256  /srv/.$OBJECT.part" | sha256sum -c -
            mv "/srv/.$OBJECT.part" "/srv/$OBJECT"
            ls -1t /srv/*.tar.gz | tail -n +4 | xargs -r rm -f
          EOT
          ]
          env {
            name = "BUNDLE_URL"
            value_from {
              secret_key_ref {
                name = kubernetes_secret_v1.link.metadata[0].name
                key  = "url"
              }
            }
          }
          env {
            name  = "SHA256"
            value = local.digest
          }
          env {
            name  = "OBJECT"
            value = local.object
          }
          volume_mount {
            name       = "mirror"
            mount_path = "/srv"
          }
        }
        volume {
          name = "mirror"
          persistent_volume_claim {
            claim_name = kubernetes_persistent_volume_claim_v1.mirror.metadata[0].name
          }
        }
      }
    }
  }
  wait_for_completion = true
  timeouts {
    create = "15m"
  }
}

resource "helm_release" "docs" {
  name      = "docs"
  namespace = var.namespace
  chart     = "./charts/docs"
  wait      = true
  atomic    = true

  values = [yamlencode(provider::docsadmin::helm_values(
    "http://${kubernetes_service_v1.mirror.metadata[0].name}.${var.namespace}.svc.cluster.local/${local.object}",
    null,
  ))]

  depends_on = [kubernetes_job_v1.fetch, kubernetes_deployment_v1.mirror]
}
