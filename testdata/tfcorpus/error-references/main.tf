# References OpenTofu refuses, each where it points: a name that is not a
# reference, objects used whole or indexed, undeclared resources and
# modules (in a block with no instance, in an unused local, in a module),
# attributes the special objects do not have, reserved names. The
# dynamic block's iterator and the resource. prefix are references it
# takes.

module "net" {
  source = "./child"
}

resource "terraform_data" "one" {
  input = "y"
}

resource "terraform_data" "counted" {
  count = 2
  input = count.idx
}

resource "terraform_data" "eached" {
  for_each = toset(["a"])
  input    = each.val
}

resource "terraform_data" "zero" {
  count = 0
  input = nope_type.x.y
}

data "terraform_remote_state" "rs" {
  backend = "local"
  config  = { path = "other.tfstate" }
}

locals {
  unused = terraform_data.missing.id
}

resource "terraform_data" "fine" {
  input = resource.terraform_data.one.output
  lifecycle {
    postcondition {
      condition     = self.output != null
      error_message = "no output"
    }
  }
}

output "bare_name" { value = "${name}" }
output "data_alone" { value = data.foo }
output "module_typo" { value = module.nett.x }
output "count_outside" { value = count.index }
output "self_outside" { value = self.x }
output "path_attr" { value = path.modul }
output "terraform_attr" { value = terraform.foo }
output "terraform_env" { value = terraform.env }
output "undeclared_type" { value = null_resource.nope.id }
output "undeclared_name" { value = terraform_data.nope }
output "undeclared_data" { value = data.x.y.z }
output "data_prefix" { value = terraform_remote_state.rs }
output "data_index" { value = data.terraform_remote_state["rs"] }
output "module_index" { value = module["net"] }
output "reserved" { value = template.x }
output "resource_prefix_undeclared" { value = resource.terraform_data.two.id }
