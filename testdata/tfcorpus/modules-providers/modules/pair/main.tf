terraform {
  required_providers {
    fwtest = {
      source                = "kyku/fwtest"
      configuration_aliases = [fwtest.primary, fwtest.secondary]
    }
  }
}

data "fwtest_item" "primary" {
  provider = fwtest.primary
  name     = "region"
}

data "fwtest_item" "secondary" {
  provider = fwtest.secondary
  name     = "region"
}

resource "fwtest_item" "link" {
  provider = fwtest.secondary
  name     = "link"
  value    = "${data.fwtest_item.primary.value}-to-${data.fwtest_item.secondary.value}"
}

output "regions" {
  value = [data.fwtest_item.primary.value, data.fwtest_item.secondary.value]
}
