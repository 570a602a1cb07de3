# Modules: a plain call, one with count, one with for_each, and nested calls.
module "plain" {
  source = "./modules/net"
  name   = "plain"
}

module "counted" {
  count  = 2
  source = "./modules/net"
  name   = "counted-${count.index}"
}

module "each" {
  for_each = toset(["eu", "us"])
  source   = "./modules/net"
  name     = each.key
}

output "plain" {
  value = module.plain.id
}

output "each" {
  value = { for k, m in module.each : k => m.leaf }
}
