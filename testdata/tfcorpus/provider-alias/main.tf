# Two configurations of one provider (a default and an alias) and the
# provider meta-argument on resources and data sources: each reads its
# own test cloud, so which configuration served a read shows in its value.

terraform {
  required_providers {
    fwtest = {
      source  = "kyku/fwtest"
      version = "0.1.0"
    }
    random = {
      source  = "hashicorp/random"
      version = "3.9.0"
    }
  }
}

provider "fwtest" {
  dir = "${path.module}/cloud-a"
}

provider "fwtest" {
  alias = "b"
  dir   = "${path.module}/cloud-b"
}

provider "random" {
  alias = "other"
}

data "fwtest_item" "from_a" {
  name = "shared"
}

data "fwtest_item" "from_b" {
  provider = fwtest.b
  name     = "shared"
}

resource "fwtest_item" "in_b" {
  provider = fwtest.b
  name     = "copy"
  value    = data.fwtest_item.from_a.value
}

resource "random_integer" "port" {
  provider = random.other
  min      = 1024
  max      = 65535
}

output "values" {
  value = [data.fwtest_item.from_a.value, data.fwtest_item.from_b.value]
}
