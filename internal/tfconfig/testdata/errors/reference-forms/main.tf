# References OpenTofu refuses, each where it points: names that are not
# references, objects used whole, undeclared resources and modules, instance
# keys where there are none (or none where they are needed), attributes the
# special objects do not have, reserved names.

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
output "missing_key" { value = terraform_data.counted.id }
output "unexpected_key" { value = terraform_data.one[0].id }
output "count_attr" { value = terraform_data.one.count }
output "data_prefix" { value = terraform_remote_state.rs }
output "var_index" { value = var["x"] }
output "data_index" { value = data.terraform_remote_state["rs"] }
output "module_index" { value = module["net"] }
output "reserved" { value = template.x }
output "resource_prefix" { value = resource.terraform_data.one.id }
output "resource_prefix_undeclared" { value = resource.terraform_data.two.id }

# Not refused: a dynamic block's iterator (by its label, or renamed), the
# resource. prefix, self in a postcondition, count.index where count is set.
resource "terraform_data" "dynamic" {
  count = 1
  input = resource.terraform_data.one.output
  dynamic "rule" {
    for_each = ["a", "b"]
    iterator = r
    content {
      name = r.value
      dynamic "nested" {
        for_each = [r.key]
        content {
          v = nested.value
        }
      }
    }
  }
  lifecycle {
    postcondition {
      condition     = self.output != null
      error_message = "output of ${count.index}"
    }
  }
}

resource "terraform_data" "conditions" {
  lifecycle {
    precondition {
      condition     = count.index == 0
      error_message = "not counted"
    }
  }
}

locals {
  applying = terraform.applying
}

output "applying" { value = local.applying }
