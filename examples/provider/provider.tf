terraform {
  required_providers {
    docsadmin = {
      source  = "docsadmin/docsadmin"
      version = "~> 0.1" # pin a minor version; the lock file pins the exact build
    }
  }
}

# Settings can come from the environment instead:
# DOCSADMIN_API_KEY, DOCSADMIN_BASE_URL and DOCSADMIN_PROJECT_ID.
provider "docsadmin" {
  base_url   = "https://api.example.com"
  api_key    = var.docsadmin_api_key
  project_id = "proj_0123456789"

  # Optional request budget shared by every resource and data source.
  max_retries             = 5
  requests_per_second     = 20
  max_concurrent_requests = 8
}

variable "docsadmin_api_key" {
  type      = string
  sensitive = true
}
