terraform {
  required_providers {
    fwtest = {
      source = "kyku/fwtest"
    }
  }
}

variable "label" {
  type = string
}

data "fwtest_item" "region" {
  name = "region"
}

resource "fwtest_item" "marker" {
  name  = "marker-${var.label}"
  value = data.fwtest_item.region.value
}

output "region" {
  value = data.fwtest_item.region.value
}
