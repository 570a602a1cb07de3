# count and for_each from values known at plan that come from other
# objects: a resource's configured attribute, and data sources read at plan.

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

resource "terraform_data" "catalog" {
  input = {
    services = ["api", "web"]
    owners   = { api = "team-a", web = "team-b" }
  }
}

# input is known at plan (configured), so its keys can drive for_each.
resource "terraform_data" "service" {
  for_each = toset(terraform_data.catalog.input.services)
  input = {
    name  = each.key
    owner = terraform_data.catalog.input.owners[each.key]
  }
}

# The test cloud holds two items named app-…; the list is read at plan.
data "fwtest_list" "apps" {
  prefix = "app-"
}

resource "fwtest_item" "mirror" {
  for_each = data.fwtest_list.apps.values
  name     = "mirror-${each.key}"
  value    = each.value
}

resource "terraform_data" "counted" {
  count = length(data.fwtest_list.apps.names)
  input = data.fwtest_list.apps.names[count.index]
}

output "apps" {
  value = data.fwtest_list.apps.names
}
