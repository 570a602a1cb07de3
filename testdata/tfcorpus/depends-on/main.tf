# depends_on between resources, on a module, from a module call, and on a
# data source (whose read then waits for apply).

terraform {
  required_providers {
    local = {
      source  = "hashicorp/local"
      version = "2.9.0"
    }
  }
}

resource "terraform_data" "database" {
  input = "db"
}

resource "terraform_data" "migrations" {
  input      = "run migrations"
  depends_on = [terraform_data.database]
}

module "app" {
  source     = "./modules/app"
  name       = "app"
  depends_on = [terraform_data.migrations]
}

resource "terraform_data" "after_module" {
  input      = "after"
  depends_on = [module.app]
}

data "local_file" "readme" {
  filename   = "${path.module}/README.txt"
  depends_on = [terraform_data.database]
}

data "local_file" "readme_now" {
  filename = "${path.module}/README.txt"
}

output "readme_now" {
  value = data.local_file.readme_now.content
}

output "readme_later" {
  value = data.local_file.readme.content
}
