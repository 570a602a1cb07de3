variable "name" {
  type = string
}
variable "pages" {
  type    = number
  default = 1
}
locals {
  domain = "${var.name}.example.com"
}
module "page" {
  source = "./page"
  count  = var.pages
  url    = "https://${local.domain}/${count.index}"
}
output "urls" {
  value = module.page[*].url
}
