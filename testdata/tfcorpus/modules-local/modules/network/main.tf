variable "name" {
  type = string
}

variable "cidr" {
  type = string
}

variable "zones" {
  type = list(string)
}

resource "terraform_data" "vpc" {
  input = {
    name = var.name
    cidr = var.cidr
  }
}

module "subnet" {
  source   = "./modules/subnet"
  for_each = toset(var.zones)

  vpc  = terraform_data.vpc.input.name
  zone = each.key
  cidr = cidrsubnet(var.cidr, 8, index(var.zones, each.key))
}

output "vpc" {
  value = terraform_data.vpc.input
}

output "vpc_id" {
  value = terraform_data.vpc.id
}

output "subnet_cidrs" {
  value = { for z, m in module.subnet : z => m.cidr }
}

output "module_path" {
  value = [path.module, module.subnet["a"].module_path]
}
