# Providers passed into modules: the default configuration inherited, an
# alias passed as a module's default, and two aliases passed to a module
# that declares configuration_aliases.

terraform {
  required_providers {
    fwtest = {
      source  = "kyku/fwtest"
      version = "0.1.0"
    }
  }
}

provider "fwtest" {
  dir = "${path.module}/cloud-east"
}

provider "fwtest" {
  alias = "west"
  dir   = "${path.module}/cloud-west"
}

module "inherited" {
  source = "./modules/reader"
  label  = "inherited"
}

module "west" {
  source = "./modules/reader"
  label  = "west"
  providers = {
    fwtest = fwtest.west
  }
}

module "pair" {
  source = "./modules/pair"
  providers = {
    fwtest.primary   = fwtest
    fwtest.secondary = fwtest.west
  }
}

output "regions" {
  value = {
    inherited = module.inherited.region
    west      = module.west.region
    pair      = module.pair.regions
  }
}
