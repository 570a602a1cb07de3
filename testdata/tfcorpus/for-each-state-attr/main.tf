# Step 2 (planned): for_each and count from attributes computed at apply
# in step 1, known now because they are in state and do not change.
terraform {
  required_providers {
    random = {
      source  = "hashicorp/random"
      version = "3.9.0"
    }
  }
}

resource "random_pet" "team" {
  count = 2
}

resource "terraform_data" "per_team" {
  for_each = toset(random_pet.team[*].id)
  input    = "workspace of ${each.key}"
}

resource "terraform_data" "per_length" {
  count = length(random_pet.team[0].id) > 0 ? 1 : 0
  input = random_pet.team[0].id
}
