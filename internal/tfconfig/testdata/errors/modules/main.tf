module "remote" {
  source = "hashicorp/consul/aws"
}
module "versioned" {
  source  = "./child"
  version = "1.0.0"
  needed  = "x"
}
module "both" {
  source   = "./child"
  count    = 1
  for_each = {}
  needed   = "x"
}
