# Real-world shape: security groups whose rules are dynamic blocks over a
# variable, filtered and extended per environment, with tags merged.

terraform {
  required_providers {
    sdktest = {
      source  = "kyku/sdktest"
      version = "0.1.0"
    }
  }
}

provider "sdktest" {
  dir = "${path.module}/cloud"
}

variable "environment" {
  type    = string
  default = "prod"
}

variable "groups" {
  type = map(object({
    description = string
    rules = list(object({
      port  = number
      cidrs = list(string)
      envs  = optional(list(string))
    }))
  }))
  default = {
    web = {
      description = "web servers"
      rules = [
        { port = 443, cidrs = ["0.0.0.0/0"] },
        { port = 80, cidrs = ["0.0.0.0/0"], envs = ["dev"] },
        { port = 22, cidrs = ["10.0.0.0/8", "192.168.0.0/16"] },
      ]
    }
    db = {
      description = "databases"
      rules = [
        { port = 5432, cidrs = ["10.0.1.0/24"] },
      ]
    }
    empty = {
      description = "no rules"
      rules       = []
    }
  }
}

locals {
  # One rule per port and CIDR, keeping only the rules for this environment.
  rules = {
    for name, g in var.groups : name => flatten([
      for r in g.rules : [for c in r.cidrs : { port = r.port, cidr = c }]
      if r.envs == null || contains(coalesce(r.envs, []), var.environment)
    ])
  }
}

resource "sdktest_item" "sg" {
  for_each = var.groups
  name     = "${var.environment}-${each.key}"
  value    = replace(each.value.description, " ", "_")
  tags = {
    Environment = var.environment
    Rules       = tostring(length(local.rules[each.key]))
  }

  dynamic "rule" {
    for_each = local.rules[each.key]
    content {
      port = rule.value.port
      cidr = rule.value.cidr
    }
  }
}

output "rule_counts" {
  value = { for k, sg in sdktest_item.sg : k => length(sg.rule) }
}
