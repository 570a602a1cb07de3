terraform {
  required_providers {
    null = { source = "hashicorp/null", version = "3.3.1" }
  }
}

resource "null_resource" "plain" {
  triggers = {
    version = "1"
    owner   = "team-a"
  }
}

resource "null_resource" "counted" {
  count = 2
  triggers = {
    index = tostring(count.index)
  }
}

resource "null_resource" "bare" {
}
