variable "name" {
  type = string
}

variable "tags_dir" {
  type = string
}

resource "terraform_data" "green" {
  input = var.name
}

output "described" {
  value = "green ${var.name}"
}
