variable "label" {
  type = string
}

resource "terraform_data" "box" {
  input = var.label
}
