variable "name" {
  type = string
}
resource "terraform_data" "in" {
  input = var.name
}
output "name" {
  value = terraform_data.in.input
}
