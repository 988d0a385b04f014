# Copying this? Declare the provider's source once per module, as on the
# provider page, or terraform init looks for hashicorp/docsadmin:
#   terraform { required_providers { docsadmin = { source = "docsadmin/docsadmin" } } }

# Export the site; the resource waits until the export has completed.
resource "docsadmin_static_export" "docs" {
  domain = "docs.example.com"
}

# A fresh link to that export on every Terraform run (Terraform 1.10+). It is
# never written to plan or state.
ephemeral "docsadmin_static_export_bundle" "docs" {
  job_id = docsadmin_static_export.docs.job_id
}

# Ephemeral values may flow into locals, provider blocks and write-only
# arguments, such as set_wo of helm_release (see examples/pipelines/helm).
locals {
  chart_values = provider::docsadmin::helm_values(ephemeral.docsadmin_static_export_bundle.docs.bundle_url, null)
}
