# Step 1 (applied).
terraform {
  required_providers {
    random = {
      source  = "hashicorp/random"
      version = "3.9.0"
    }
  }
}

resource "terraform_data" "forget_me" {
  input = "kept in the cloud"
}

resource "random_pet" "forget_counted" {
  count = 2
}

resource "terraform_data" "destroy_me" {
  input = "destroyed"
}

resource "terraform_data" "stays" {
  input = "stays"
}
