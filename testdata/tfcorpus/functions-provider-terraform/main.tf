# The functions of OpenTofu's built-in provider, called where a module
# requires it: encode_tfvars, decode_tfvars and encode_expr.

terraform {
  required_providers {
    terraform = {
      source = "terraform.io/builtin/terraform"
    }
  }
}

locals {
  tfvars = <<-EOT
    region    = "eu-central-1"
    instances = 3
    tags = {
      env = "prod"
    }
  EOT
}

output "encode_tfvars" {
  value = provider::terraform::encode_tfvars({ region = "eu-central-1", instances = 3, zones = ["a", "b"] })
}

output "decode_tfvars" {
  value = provider::terraform::decode_tfvars(local.tfvars)
}

output "encode_expr" {
  value = [
    provider::terraform::encode_expr("hello"),
    provider::terraform::encode_expr(42),
    provider::terraform::encode_expr([1, "a", { k = true }]),
    provider::terraform::encode_expr({ name = "x", list = [null] }),
  ]
}

output "round_trip" {
  value = provider::terraform::decode_tfvars(provider::terraform::encode_tfvars({ a = "1", b = [true] }))
}
