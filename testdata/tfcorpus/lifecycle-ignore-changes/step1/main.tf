# Step 1 (applied).
terraform {
  required_providers {
    null = {
      source  = "hashicorp/null"
      version = "3.3.1"
    }
  }
}

resource "terraform_data" "partial" {
  input = {
    size = "small"
    tags = { owner = "ann" }
  }
  triggers_replace = "v1"
}

resource "terraform_data" "all" {
  input            = "first"
  triggers_replace = "v1"
}

resource "null_resource" "triggers" {
  triggers = {
    version = "1"
    owner   = "ann"
  }
}
