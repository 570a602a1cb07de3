# Step 1 (applied): the names before the moves.
terraform {
  required_providers {
    random = {
      source  = "hashicorp/random"
      version = "3.9.0"
    }
  }
}

resource "terraform_data" "old_name" {
  input = "renamed"
}

resource "random_pet" "counted" {
  count = 2
}

resource "terraform_data" "single" {
  input = "will be counted"
}

resource "terraform_data" "into_module" {
  input = "boxed"
}

module "old_module" {
  source = "./modules/box"
  label  = "module renamed"
}
