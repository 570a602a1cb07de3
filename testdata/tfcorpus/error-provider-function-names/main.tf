# A provider's function called by a local name the module's
# required_providers lacks, in the root module and in a module that
# requires the provider only in its parent: OpenTofu refuses the
# configuration before evaluating it.

terraform {
  required_providers {
    fwtest = {
      source  = "kyku/fwtest"
      version = "0.1.0"
    }
  }
}

output "undeclared" {
  value = provider::fw::join_upper("-", "a")
}

module "child" {
  source = "./modules/child"
}
