# terraform.workspace, path.module, path.root and path.cwd, in the root
# and in a child module. path.cwd is absolute: the recording replaces the
# working directory with a placeholder.

locals {
  env = terraform.workspace == "default" ? "dev" : terraform.workspace
}

resource "terraform_data" "ws" {
  input = {
    workspace = terraform.workspace
    env       = local.env
    name      = "app-${terraform.workspace}"
  }
}

module "child" {
  source = "./modules/child"
}

output "workspace" {
  value = terraform.workspace
}

output "paths" {
  value = {
    module = path.module
    root   = path.root
    cwd    = path.cwd
    child  = module.child.paths
  }
}
