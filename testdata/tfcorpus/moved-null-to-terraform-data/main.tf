# From a state: null_resources moved to terraform_data with moved blocks,
# the migration off hashicorp/null (OpenTofu's terraform_data takes a
# null_resource's state: its ID kept, triggers its triggers_replace). One
# keeps its triggers (a no-op move), the counted ones move whole, one
# gets an input (an update of the moved object), and one without
# triggers moves with none.

resource "terraform_data" "plain" {
  triggers_replace = {
    version = "1"
    owner   = "team-a"
  }
}

moved {
  from = null_resource.plain
  to   = terraform_data.plain
}

resource "terraform_data" "counted" {
  count = 2
  triggers_replace = {
    index = tostring(count.index)
  }
  input = "now-${count.index}"
}

moved {
  from = null_resource.counted
  to   = terraform_data.counted
}

resource "terraform_data" "bare" {
}

moved {
  from = null_resource.bare
  to   = terraform_data.bare
}
