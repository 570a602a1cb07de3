# terraform_remote_state reading another root's outputs from its state
# (the local backend, a state file beside the configuration), with
# defaults for an output it does not have.

data "terraform_remote_state" "network" {
  backend = "local"
  config = {
    path = "${path.module}/network.tfstate"
  }
  defaults = {
    region = "eu-central"
  }
}

locals {
  net = data.terraform_remote_state.network.outputs
}

resource "terraform_data" "server" {
  for_each = local.net.zones
  input = {
    vpc    = local.net.vpc_id
    zone   = each.key
    cidr   = each.value
    region = local.net.region
  }
}

output "subnets" {
  value = local.net.private_subnets
}

output "db_password" {
  value     = local.net.db_password
  sensitive = true
}
