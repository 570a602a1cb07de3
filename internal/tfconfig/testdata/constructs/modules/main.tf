variable "sites" {
  default = { blog = 2, shop = 1 }
}
module "site" {
  source   = "./mods/site"
  for_each = var.sites
  name     = each.key
  pages    = each.value
}
module "single" {
  source = "./mods/site"
  name   = "single"
}
resource "null_resource" "index" {
  triggers = {
    urls  = jsonencode({ for k, s in module.site : k => s.urls })
    first = module.single.urls[0]
  }
}
output "urls" {
  value = module.site["blog"].urls
}
