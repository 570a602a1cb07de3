# check blocks: assertions that pass, one that fails (a warning, not an
# error), one on a value known only after apply, and one with a scoped
# data source, and one whose scoped data source fails to read.

terraform {
  required_providers {
    fwtest = {
      source  = "kyku/fwtest"
      version = "0.1.0"
    }
  }
}

provider "fwtest" {
  dir = "${path.module}/cloud"
}

variable "replicas" {
  type    = number
  default = 2
}

resource "terraform_data" "app" {
  input = { replicas = var.replicas }
}

check "replicas" {
  assert {
    condition     = var.replicas >= 2
    error_message = "Run at least two replicas."
  }
}

check "too_few" {
  assert {
    condition     = var.replicas >= 3
    error_message = "Three replicas are recommended."
  }
}

check "app_id" {
  assert {
    condition     = terraform_data.app.id != ""
    error_message = "The app has an id."
  }
}

check "health" {
  data "fwtest_item" "health" {
    name = "health"
  }

  assert {
    condition     = data.fwtest_item.health.value == "ok"
    error_message = "The health item says ${data.fwtest_item.health.value}."
  }
}

# A scoped data source that fails to read (no such item) is a warning,
# not an error: read again during apply, its assertion unknown.
check "missing" {
  data "fwtest_item" "missing" {
    name = "missing"
  }

  assert {
    condition     = data.fwtest_item.missing.value == "ok"
    error_message = "The missing item says ${data.fwtest_item.missing.value}."
  }
}
