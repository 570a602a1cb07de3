# Locals referring to each other, to variables and across files.

variable "project" {
  type    = string
  default = "shop"
}

variable "environment" {
  type    = string
  default = "prod"
}

locals {
  prefix = "${var.project}-${var.environment}"
  common_tags = {
    Project     = var.project
    Environment = var.environment
    ManagedBy   = "tofu"
  }
  names = [for s in local.services : "${local.prefix}-${s}"]
}

resource "terraform_data" "tagged" {
  for_each = toset(local.names)
  input = merge(local.common_tags, {
    Name = each.value
  })
}

output "names" {
  value = local.names
}

output "settings" {
  value = local.settings
}
