# Splat expressions: full [*] and legacy .*, on counted resources, on
# nested blocks, on a single object and on null, and over for_each values.

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

variable "maybe" {
  type    = object({ id = string })
  default = null
}

resource "terraform_data" "node" {
  count = 3
  input = { name = "node-${count.index}", weight = count.index * 10 }
}

resource "terraform_data" "by_key" {
  for_each = { a = 1, b = 2 }
  input    = each.value
}

resource "sdktest_item" "lb" {
  name = "lb"
  rule {
    port = 80
  }
  rule {
    port = 443
    cidr = "10.0.0.0/8"
  }
}

output "names" {
  value = terraform_data.node[*].input.name
}

output "legacy" {
  value = terraform_data.node.*.input.weight
}

output "ids_unknown" {
  value = terraform_data.node[*].id
}

output "rule_ports" {
  value = sdktest_item.lb.rule[*].port
}

output "single" {
  value = { id = "x" }[*].id
}

output "null_splat" {
  value = var.maybe[*].id
}

output "for_each_values" {
  value = values(terraform_data.by_key)[*].input
}
