# The terraform block: required_version, required_providers with version
# constraints (the mirror holds the exact versions), and a backend (local,
# a path of its own under the working directory). required_version here,
# in a .tf file, pins Terraform (1.5, which OpenTofu is not): OpenTofu
# 1.12 ignores it, and reads its own constraints from versions.tofu and
# the language block (language.tf).

terraform {
  required_version = "~> 1.5.0"

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
