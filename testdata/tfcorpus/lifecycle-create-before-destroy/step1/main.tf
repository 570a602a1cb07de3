# Step 1 (applied).
terraform {
  required_providers {
    random = {
      source  = "hashicorp/random"
      version = "3.9.0"
    }
  }
}

resource "random_pet" "server" {
  keepers = {
    image = "debian-12"
  }
  lifecycle {
    create_before_destroy = true
  }
}

resource "random_pet" "plain" {
  keepers = {
    image = "debian-12"
  }
}

resource "terraform_data" "uses" {
  input = random_pet.server.id
}
