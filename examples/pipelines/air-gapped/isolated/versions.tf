terraform {
  required_version = ">= 1.8" # provider functions
  required_providers {
    # Only for helm_values: no provider block, no API key, no network.
    docsadmin = {
      source  = "docsadmin/docsadmin"
      version = "~> 0.1"
    }
    aws = {
      source  = "hashicorp/aws"
      version = "~> 6.0"
    }
    helm = {
      source  = "hashicorp/helm"
      version = "~> 3.0"
    }
  }
}
