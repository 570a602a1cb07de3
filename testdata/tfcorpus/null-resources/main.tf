# hashicorp/null: null_resource with triggers, counted; the null_data_source
# is deprecated and left out.

terraform {
  required_providers {
    null = {
      source  = "hashicorp/null"
      version = "3.3.1"
    }
  }
}

variable "releases" {
  type    = list(string)
  default = ["v1", "v2"]
}

resource "null_resource" "plain" {}

resource "null_resource" "release" {
  count = length(var.releases)
  triggers = {
    version = var.releases[count.index]
    index   = count.index
  }
}

resource "null_resource" "after" {
  triggers = {
    releases = join(",", null_resource.release[*].id)
  }
}

output "release_ids" {
  value = null_resource.release[*].id
}
