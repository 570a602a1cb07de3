# count from a variable, a conditional count, count = 0, count.index, and
# references to counted instances.

variable "instances" {
  type    = number
  default = 3
}

variable "with_bastion" {
  type    = bool
  default = false
}

variable "with_monitor" {
  type    = bool
  default = true
}

resource "terraform_data" "server" {
  count = var.instances
  input = {
    name  = format("server-%02d", count.index + 1)
    index = count.index
  }
}

resource "terraform_data" "bastion" {
  count = var.with_bastion ? 1 : 0
  input = "bastion"
}

resource "terraform_data" "monitor" {
  count = var.with_monitor ? 1 : 0
  input = {
    targets = terraform_data.server[*].input.name
    first   = terraform_data.server[0].input.name
    last    = terraform_data.server[var.instances - 1].input.name
  }
}

resource "terraform_data" "none" {
  count = 0
  input = "never"
}

output "server_names" {
  value = [for s in terraform_data.server : s.input.name]
}

output "bastion" {
  value = length(terraform_data.bastion) > 0 ? terraform_data.bastion[0].input : null
}

output "monitor_targets" {
  value = one(terraform_data.monitor[*].input.targets)
}
