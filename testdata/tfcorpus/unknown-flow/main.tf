# Values known only after apply flowing through interpolation, operators,
# functions, collections, conditionals and into other resources: what
# stays known and what becomes unknown.

terraform {
  required_providers {
    random = {
      source  = "hashicorp/random"
      version = "3.9.0"
    }
    null = {
      source  = "hashicorp/null"
      version = "3.3.1"
    }
  }
}

resource "random_id" "x" {
  byte_length = 8
}

resource "random_integer" "n" {
  min = 1
  max = 10
}

locals {
  hex = random_id.x.hex
}

resource "terraform_data" "derived" {
  input = {
    direct       = local.hex
    interpolated = "srv-${local.hex}"
    upper        = upper(local.hex)
    length       = length(local.hex)
    sum          = random_integer.n.result + 1
    compare      = random_integer.n.result > 5
    list         = [local.hex, "known"]
    list_length  = length([local.hex, "known"])
    map          = { id = local.hex, fixed = "known" }
    keys         = keys({ id = local.hex, fixed = "known" })
    json         = jsonencode({ id = local.hex })
    coalesce     = coalesce(local.hex, "fallback")
    cond_known   = true ? "known" : local.hex
    cond_unknown = random_integer.n.result > 5 ? "big" : "small"
    try          = try(local.hex, "fallback")
    can          = can(local.hex)
    nullness     = local.hex == null
    splat        = [random_id.x][*].hex
    startswith   = startswith("srv-${local.hex}", "srv-")
    format       = format("%s-%d", "n", random_integer.n.result)
  }
}

resource "null_resource" "consumer" {
  triggers = {
    id    = random_id.x.id
    dec   = random_id.x.dec
    fixed = "known"
  }
}

resource "terraform_data" "chained" {
  input = terraform_data.derived.output
}

output "hex" {
  value = local.hex
}

output "known_length" {
  value = length([local.hex, local.hex])
}

output "startswith" {
  value = startswith("srv-${local.hex}", "srv-")
}
