variable "name" {
  type = string
}

resource "terraform_data" "app" {
  input = var.name
}

output "id" {
  value = terraform_data.app.id
}
