# Real-world shape: one service module instantiated per entry of a map
# with for_each, each with its own database password, DNS record and
# settings merged over defaults; outputs collected per service.

terraform {
  required_providers {
    fwtest = {
      source  = "kyku/fwtest"
      version = "0.1.0"
    }
    random = {
      source  = "hashicorp/random"
      version = "3.9.0"
    }
  }
}

provider "fwtest" {
  dir = "${path.module}/cloud"
}

variable "domain" {
  type    = string
  default = "example.com"
}

variable "services" {
  type = map(object({
    image    = string
    replicas = optional(number, 1)
    public   = optional(bool, false)
    env      = optional(map(string), {})
  }))
  default = {
    api = {
      image    = "registry.example.com/api:1.4.2"
      replicas = 3
      public   = true
      env      = { LOG_LEVEL = "info" }
    }
    worker = {
      image = "registry.example.com/worker:1.4.2"
    }
    admin = {
      image  = "registry.example.com/admin:0.9.0"
      public = true
    }
  }
}

locals {
  default_env = {
    LOG_LEVEL = "warn"
    REGION    = "eu-central-1"
  }
}

module "service" {
  source   = "./modules/service"
  for_each = var.services

  name     = each.key
  image    = each.value.image
  replicas = each.value.replicas
  hostname = each.value.public ? "${each.key}.${var.domain}" : null
  env      = merge(local.default_env, each.value.env)
}

output "endpoints" {
  value = { for k, m in module.service : k => m.endpoint if m.endpoint != null }
}

output "service_ids" {
  value = { for k, m in module.service : k => m.id }
}

output "database_passwords" {
  value     = { for k, m in module.service : k => m.db_password }
  sensitive = true
}
