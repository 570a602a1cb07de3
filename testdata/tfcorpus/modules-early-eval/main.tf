# Module sources read from variables and locals, as OpenTofu (1.8 and
# later) evaluates them before anything is installed: the flavor from
# TF_VAR_flavor (corpus.env, given to init and plan) picks the module,
# which passes a directory it is given on to the module it calls; a
# variable's default and a function build the rest.

variable "flavor" {
  type    = string
  default = "green"
}

variable "shared" {
  type    = string
  default = "shared"
}

locals {
  service_dir = "./modules/${var.flavor}"
}

module "service" {
  source   = local.service_dir
  for_each = toset(["api", "web"])
  name     = each.key
  tags_dir = format("../../%s/tags", var.shared)
}

module "tags" {
  source = "./${var.shared}/tags"
  owner  = "platform"
}

output "services" {
  value = { for k, m in module.service : k => m.described }
}
