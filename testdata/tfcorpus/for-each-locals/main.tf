# for_each over locals built with flatten and for expressions: the
# network × subnet pattern.

variable "networks" {
  type = map(object({
    cidr    = string
    subnets = list(string)
  }))
  default = {
    app = { cidr = "10.0.0.0/16", subnets = ["a", "b"] }
    db  = { cidr = "10.1.0.0/16", subnets = ["a"] }
  }
}

locals {
  subnets = flatten([
    for net_name, net in var.networks : [
      for i, sub in net.subnets : {
        key     = "${net_name}-${sub}"
        network = net_name
        cidr    = cidrsubnet(net.cidr, 8, i)
      }
    ]
  ])
  subnet_map = { for s in local.subnets : s.key => s }
}

resource "terraform_data" "network" {
  for_each = var.networks
  input    = each.value.cidr
}

resource "terraform_data" "subnet" {
  for_each = local.subnet_map
  input = {
    network_cidr = terraform_data.network[each.value.network].input
    cidr         = each.value.cidr
  }
}

output "subnet_cidrs" {
  value = { for k, s in local.subnet_map : k => s.cidr }
}
