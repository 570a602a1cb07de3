# A change that would replace a resource with prevent_destroy: OpenTofu
# refuses the plan at the resource's block.

resource "terraform_data" "db" {
  triggers_replace = "engine-16"
  lifecycle {
    prevent_destroy = true
  }
}
