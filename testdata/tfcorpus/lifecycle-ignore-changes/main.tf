# Step 2 (planned): ignore_changes on one attribute, on a map key, and
# all: the changes to what is ignored are not planned.
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
    size = "large"
    tags = { owner = "ben" }
  }
  triggers_replace = "v2"

  lifecycle {
    ignore_changes = [triggers_replace]
  }
}

resource "terraform_data" "all" {
  input            = "second"
  triggers_replace = "v2"

  lifecycle {
    ignore_changes = all
  }
}

resource "null_resource" "triggers" {
  triggers = {
    version = "1"
    owner   = "ben"
  }

  lifecycle {
    ignore_changes = [triggers["owner"]]
  }
}
