# for_each over maps whose keys are known at plan and whose values are
# known only after apply (IDs of objects this plan creates): a module's
# output, and a resource's instances; each.value is unknown in the plan,
# the instances are not.

module "net" {
  source = "./modules/net"
  zones  = ["a", "b"]
}

resource "terraform_data" "subnet" {
  for_each = module.net.ids
  input    = "${each.key}:${each.value}"
}

resource "terraform_data" "route" {
  for_each = terraform_data.subnet
  input    = each.value.id
}

output "subnets" {
  value = keys(terraform_data.subnet)
}
