# ignore_changes naming one entry of a map: a change to that entry alone
# is ignored (web: no change), a change beside it is planned with the
# ignored entry kept as it was (db: replaced for cost, owner kept).

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
    owner = "team-b"
    cost  = "100"
  }
  lifecycle {
    ignore_changes = [triggers["owner"]]
  }
}

resource "null_resource" "db" {
  triggers = {
    owner = "team-b"
    cost  = "200"
  }
  lifecycle {
    ignore_changes = [triggers["owner"]]
  }
}
