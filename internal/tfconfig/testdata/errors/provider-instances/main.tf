terraform {
  required_providers {
    random = { source = "hashicorp/random" }
  }
}

provider "random" {
  alias    = "by"
  for_each = toset(["a", "b"])
}

resource "random_pet" "p" {
  for_each = toset(["a", "b"])
  provider = random.by[each.key]
}

resource "random_pet" "q" {
  provider = random.by["a"]
}

module "m" {
  source = "./m"
  providers = {
    random = random.by["b"]
  }
}
