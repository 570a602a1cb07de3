resource "terraform_data" "kept" {
  input = "kept"
  lifecycle {
    destroy = false
  }
}

resource "terraform_data" "replaced" {
  triggers_replace = "v1"
  lifecycle {
    destroy = false
  }
}

resource "terraform_data" "doomed" {
  input = "doomed"
  lifecycle {
    destroy = false
  }
}

resource "terraform_data" "plain" {
  input = "plain"
}
