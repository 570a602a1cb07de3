# Functions a provider defines (provider::NAME::FUNCTION), called on the
# provider unconfigured: a variadic one, one returning an object, one
# taking a list, one that may take null (given a value: OpenTofu 1.12.6
# sends a null argument as no value, which the provider refuses); with
# an argument known only after apply (the result unknown at plan; also
# an element of a list), a sensitive argument (the result sensitive),
# deciding a count, in a module of its own requirements and under
# another local name.

terraform {
  required_providers {
    fwtest = {
      source  = "kyku/fwtest"
      version = "0.1.0"
    }
    fw = {
      source  = "kyku/fwtest"
      version = "0.1.0"
    }
  }
}

variable "token" {
  type      = string
  default   = "s3cr3t"
  sensitive = true
}

variable "label" {
  type    = string
  default = "given"
}

locals {
  cidr   = provider::fwtest::parse_cidr("10.20.0.0/16")
  joined = provider::fwtest::join_upper("-", "a", "b", "c")
}

resource "terraform_data" "seed" {
  input = "seed"
}

resource "terraform_data" "per_bit" {
  count = provider::fwtest::sum([local.cidr.bits, -14])
  input = "${local.joined}-${count.index}"
}

resource "terraform_data" "later" {
  input = provider::fwtest::join_upper("/", terraform_data.seed.id, "x")
}

module "net" {
  source = "./modules/net"
  prefix = "192.168.4.0/22"
}

output "cidr" {
  value = local.cidr
}

output "joined" {
  value = local.joined
}

output "none" {
  value = provider::fw::join_upper(":")
}

output "sum" {
  value = provider::fwtest::sum([1, 2, 3.0])
}

output "label" {
  value = provider::fwtest::or_default(var.label, "unlabelled")
}

output "later" {
  value = terraform_data.later.output
}

output "unknown_now" {
  value = provider::fwtest::join_upper(",", terraform_data.seed.id)
}

output "secret" {
  value     = provider::fwtest::join_upper("+", "x", var.token) == "" ? "empty" : "set"
  sensitive = true
}

output "net" {
  value = module.net.bits
}

output "partly_unknown" {
  value = provider::fwtest::sum([length(terraform_data.seed.id), 1])
}
