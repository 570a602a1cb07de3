# Step 1 (applied).
terraform {
  required_providers {
    random = {
      source  = "hashicorp/random"
      version = "3.9.0"
    }
  }
}

resource "terraform_data" "updated" {
  input = "before"
}

resource "terraform_data" "same" {
  input = "same"
}

resource "terraform_data" "gone" {
  input = "gone"
}

resource "random_pet" "counted" {
  count = 3
}

resource "random_pet" "keyed" {
  for_each = toset(["a", "b", "c"])
}

resource "random_string" "replaced" {
  length = 8
}
