# import blocks: one per key with for_each (from a map and from a
# variable), one plain import, over both protocols. Imports read existing
# objects of the test cloud: one as configured (an import only), the
# others with an update in place planned after the import.

terraform {
  required_providers {
    fwtest = {
      source  = "kyku/fwtest"
      version = "0.1.0"
    }
    sdktest = {
      source  = "kyku/sdktest"
      version = "0.1.0"
    }
  }
}

provider "fwtest" {
  dir = "${path.module}/cloud"
}

provider "sdktest" {
  dir = "${path.module}/cloud"
}

variable "existing" {
  type = map(object({
    id    = string
    value = string
  }))
  default = {
    web = { id = "web-1", value = "v1" }
    db  = { id = "db-2", value = "v2" }
  }
}

import {
  for_each = var.existing
  to       = fwtest_item.service[each.key]
  id       = each.value.id
}

resource "fwtest_item" "service" {
  for_each = var.existing
  name     = each.key
  value    = each.value.value
}

import {
  for_each = toset(["cache-3"])
  to       = sdktest_item.cache
  id       = each.value
}

resource "sdktest_item" "cache" {
  name  = "cache"
  value = "v1"
  tags  = { imported = "yes" }
}

import {
  to = fwtest_item.legacy
  id = "legacy-4"
}

resource "fwtest_item" "legacy" {
  name  = "legacy"
  value = "old"
}
