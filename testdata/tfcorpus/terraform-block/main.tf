# The terraform block: required_version, required_providers with version
# constraints (the mirror holds the exact versions), and a backend (local,
# a path of its own under the working directory).

terraform {
  required_version = ">= 1.6.0, < 2.0.0"

  required_providers {
    random = {
      source  = "hashicorp/random"
      version = "~> 3.9"
    }
    null = {
      source  = "hashicorp/null"
      version = ">= 3.0.0, < 4.0.0"
    }
  }

  backend "local" {
    path = "state/terraform.tfstate"
  }
}

resource "random_pet" "name" {
  prefix = "corpus"
}

resource "null_resource" "named" {
  triggers = {
    name = random_pet.name.id
  }
}

output "name" {
  value = random_pet.name.id
}
