variable "name" {
  type = string
}

resource "random_pet" "p" {
  prefix = var.name
}

module "leaf" {
  source = "../leaf"
  seed   = random_pet.p.id
}

output "id" {
  value = random_pet.p.id
}

output "leaf" {
  value = module.leaf.value
}
