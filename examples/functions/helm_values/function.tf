# Copying this? Declare the provider's source once per module, as on the
# provider page, or terraform init looks for hashicorp/docsadmin:
#   terraform { required_providers { docsadmin = { source = "docsadmin/docsadmin" } } }

resource "docsadmin_static_export" "docs" {
  domain  = "docs.example.com"
  version = "v2"
}

# The chart values that serve the bundle, shaped like the chart's own:
#   staticExport:
#     bundleUrl: "https://..."
#     enabled: true
#     version: "v2"
# Pass null as the version to leave staticExport.version out.
output "chart_values" {
  value     = yamlencode(provider::docsadmin::helm_values(docsadmin_static_export.docs.bundle_url, "v2"))
  sensitive = true # the link grants access to the bundle
}
