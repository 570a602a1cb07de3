# A root whose state OpenTofu applied (record.sh): items of both test
# providers, for_each and count, a dependency between them, outputs, and
# a second workspace (staging) beside the default one.
terraform {
  required_providers {
    fwtest  = { source = "kyku/fwtest", version = "0.1.0" }
    sdktest = { source = "kyku/sdktest", version = "0.1.0" }
  }
}

provider "fwtest" {
  dir = "${path.module}/cloud"
}

provider "sdktest" {
  dir = "${path.module}/cloud"
}

variable "value" {
  type    = string
  default = "v1"
}

resource "fwtest_item" "web" {
  for_each = toset(["a", "b"])
  name     = "${terraform.workspace}-web-${each.key}"
  value    = each.key == "a" ? var.value : "v1"
  tags     = { workspace = terraform.workspace }
}

resource "sdktest_item" "db" {
  count = 2
  name  = "${terraform.workspace}-db-${count.index}"
  value = fwtest_item.web["a"].id
  tags  = { tier = "db" }
}

output "web_ids" {
  value = { for k, w in fwtest_item.web : k => w.id }
}

output "db_names" {
  value = sdktest_item.db[*].name
}
