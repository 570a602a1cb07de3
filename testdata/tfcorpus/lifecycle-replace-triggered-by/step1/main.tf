# Step 1 (applied).
terraform {
  required_providers {
    random = {
      source  = "hashicorp/random"
      version = "3.9.0"
    }
  }
}

resource "terraform_data" "image" {
  input = "debian-12"
}

resource "terraform_data" "config" {
  input = { version = 1, note = "a" }
}

resource "random_pet" "server" {
  lifecycle {
    replace_triggered_by = [terraform_data.image]
  }
}

resource "random_pet" "by_attribute" {
  lifecycle {
    replace_triggered_by = [terraform_data.config.input.version]
  }
}

resource "random_pet" "not_triggered" {
  lifecycle {
    replace_triggered_by = [terraform_data.config.input.version]
  }
}
