# Step 2 (planned): removed blocks. destroy = false forgets the objects
# (left in the cloud, dropped from state); destroy = true destroys it, as
# a resource gone from the configuration without a block is (see
# state-changes).
terraform {
  required_providers {
    random = {
      source  = "hashicorp/random"
      version = "3.9.0"
    }
  }
}

removed {
  from = terraform_data.forget_me
  lifecycle {
    destroy = false
  }
}

removed {
  from = random_pet.forget_counted
  lifecycle {
    destroy = false
  }
}

removed {
  from = terraform_data.destroy_me
  lifecycle {
    destroy = true
  }
}

resource "terraform_data" "stays" {
  input = "stays"
}
