resource "terraform_data" "db" {
  triggers_replace = "engine-15"
  lifecycle {
    prevent_destroy = true
  }
}
