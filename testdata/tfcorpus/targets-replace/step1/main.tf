resource "terraform_data" "base" {
  input = "v1"
}

resource "terraform_data" "other" {
  input = "v1"
}

module "app" {
  source = "./modules/app"
  tag    = terraform_data.base.output
}
