# Step 2 (planned) against step 1's state: an update in place, a no-op, a
# resource gone from the configuration, count shrunk, a for_each key
# removed and one added, and a replace forced by an attribute.
terraform {
  required_providers {
    random = {
      source  = "hashicorp/random"
      version = "3.9.0"
    }
  }
}

resource "terraform_data" "updated" {
  input = "after"
}

resource "terraform_data" "same" {
  input = "same"
}

resource "random_pet" "counted" {
  count = 1
}

resource "random_pet" "keyed" {
  for_each = toset(["a", "c", "d"])
}

resource "random_string" "replaced" {
  length = 10
}
