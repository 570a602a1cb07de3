# -target and -replace from a state: the plan changes only the targeted
# module's instances and what they read from (base, replaced as asked),
# leaving an untargeted change (other) out.

resource "terraform_data" "base" {
  input = "v1"
}

resource "terraform_data" "other" {
  input = "v2"
}

module "app" {
  source = "./modules/app"
  tag    = terraform_data.base.output
}
