# From a state: lifecycle destroy = false (OpenTofu 1.12). A replace
# forgets the object, then creates its replacement (["forget", "create"]);
# a block removed forgets its object (the state recorded skip_destroy); a
# removed block with destroy = true destroys it all the same.

resource "terraform_data" "replaced" {
  triggers_replace = "v2"
  lifecycle {
    destroy = false
  }
}

removed {
  from = terraform_data.doomed
  lifecycle {
    destroy = true
  }
}

resource "terraform_data" "plain" {
  input = "plain"
}
