# for_each over values known only after apply: OpenTofu refuses the plan
# (the keys of a map, or a set's elements, must be known).

terraform {
  required_providers {
    random = {
      source  = "hashicorp/random"
      version = "3.9.0"
    }
  }
}

resource "random_pet" "name" {}

resource "terraform_data" "by_set" {
  for_each = toset([random_pet.name.id])
  input    = each.key
}

# Known keys with unknown values are fine.
resource "terraform_data" "known_keys" {
  for_each = { pet = random_pet.name.id }
  input    = each.value
}

resource "terraform_data" "by_map" {
  for_each = { (random_pet.name.id) = "x" }
  input    = each.value
}
