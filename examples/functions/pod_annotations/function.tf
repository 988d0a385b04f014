# Copying this? Declare the provider's source once per module, as on the
# provider page, or terraform init looks for hashicorp/docsadmin:
#   terraform { required_providers { docsadmin = { source = "docsadmin/docsadmin" } } }

resource "docsadmin_static_export" "docs" {
  domain = "docs.example.com"
}

# The chart's pod annotations, which change with the archive's content only:
#   podAnnotations:
#     docsadmin.io/archive-sha256: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
# A new export rolls the pods; a renewed link does not.
output "chart_values" {
  value = yamlencode({
    podAnnotations = provider::docsadmin::pod_annotations(docsadmin_static_export.docs.archive_sha256)
  })
}
