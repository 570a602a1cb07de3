# Ignored: shared.tofu exists.
locals {
  shared = "from shared.tf"
}

resource "terraform_data" "only_in_tf" {
  input = "never planned"
}
