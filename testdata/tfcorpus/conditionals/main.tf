# Conditional expressions: of every type, with null, nested, on unknown
# values, choosing resources and attributes.

terraform {
  required_providers {
    random = {
      source  = "hashicorp/random"
      version = "3.9.0"
    }
  }
}

variable "environment" {
  type    = string
  default = "prod"
}

variable "size" {
  type    = string
  default = null
}

locals {
  is_prod   = var.environment == "prod"
  instances = local.is_prod ? 3 : 1
  size      = var.size != null ? var.size : (local.is_prod ? "large" : "small")
  tags      = local.is_prod ? { tier = "gold", backup = "daily" } : { tier = "bronze" }
  zones     = local.is_prod ? ["a", "b", "c"] : ["a"]
  optional  = local.is_prod ? null : "dev only"
}

resource "random_pet" "suffix" {}

resource "terraform_data" "app" {
  input = {
    instances = local.instances
    size      = local.size
    tags      = local.tags
    zones     = local.zones
    optional  = local.optional
    # the condition is known, one branch is not
    name = local.is_prod ? "app-${random_pet.suffix.id}" : "app-dev"
    # the condition is unknown
    long_name = length(random_pet.suffix.id) > 10 ? "long" : "short"
  }
}

output "size" {
  value = local.size
}

output "optional" {
  value = local.optional
}

output "unknown_condition" {
  value = random_pet.suffix.id == "x" ? 1 : 2
}
