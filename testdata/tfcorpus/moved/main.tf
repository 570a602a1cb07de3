# Step 2 (planned): moved blocks rename a resource, turn count into
# for_each, put a single resource under count, move a resource into a
# module and rename a module. Every move is a no-op change with its
# previous address; one is also an update.
terraform {
  required_providers {
    random = {
      source  = "hashicorp/random"
      version = "3.9.0"
    }
  }
}

resource "terraform_data" "new_name" {
  input = "renamed"
}

moved {
  from = terraform_data.old_name
  to   = terraform_data.new_name
}

resource "random_pet" "keyed" {
  for_each = toset(["first", "second"])
}

moved {
  from = random_pet.counted[0]
  to   = random_pet.keyed["first"]
}

moved {
  from = random_pet.counted[1]
  to   = random_pet.keyed["second"]
}

resource "terraform_data" "single" {
  count = 1
  input = "now counted and changed"
}

module "boxed" {
  source = "./modules/box"
  label  = "boxed"
}

moved {
  from = terraform_data.into_module
  to   = module.boxed.terraform_data.box
}

module "new_module" {
  source = "./modules/box"
  label  = "module renamed"
}

moved {
  from = module.old_module
  to   = module.new_module
}
