# Step 2 (planned): a keeper changed, so both pets are replaced; the one
# with create_before_destroy as ["create", "delete"], the other as
# ["delete", "create"]; what uses the replaced one is updated with an
# unknown value.
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
    image = "debian-13"
  }
  lifecycle {
    create_before_destroy = true
  }
}

resource "random_pet" "plain" {
  keepers = {
    image = "debian-13"
  }
}

resource "terraform_data" "uses" {
  input = random_pet.server.id
}
