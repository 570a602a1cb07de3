terraform {
  required_providers {
    null = {
      source  = "hashicorp/null"
      version = "3.3.1"
    }
  }
}

resource "null_resource" "web" {
  triggers = {
    owner = "team-a"
    cost  = "100"
  }
  lifecycle {
    ignore_changes = [triggers["owner"]]
  }
}

resource "null_resource" "db" {
  triggers = {
    owner = "team-a"
    cost  = "100"
  }
  lifecycle {
    ignore_changes = [triggers["owner"]]
  }
}
