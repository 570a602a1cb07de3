# A local module with inputs and outputs that calls a nested module;
# path.module inside modules; outputs of nested modules.

module "network" {
  source = "./modules/network"

  name  = "core"
  cidr  = "10.10.0.0/16"
  zones = ["a", "b"]
}

resource "terraform_data" "consumer" {
  input = {
    vpc     = module.network.vpc
    subnets = module.network.subnet_cidrs
  }
}

output "network" {
  value = module.network
}

output "module_path" {
  value = module.network.module_path
}
