# Step 2 (planned): replace_triggered_by a resource that changes, and an
# attribute that changes; a third names an attribute that does not change
# and stays.
terraform {
  required_providers {
    random = {
      source  = "hashicorp/random"
      version = "3.9.0"
    }
  }
}

resource "terraform_data" "image" {
  input = "debian-13"
}

resource "terraform_data" "config" {
  input = { version = 2, note = "a" }
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
    replace_triggered_by = [terraform_data.config.input.note]
  }
}
