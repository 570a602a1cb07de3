terraform {
  required_version = "~> 1.5.0"
  backend "azurerm" {}
}
variable "pw" {
  sensitive = true
  default   = "hunter22"
}
output "leak" {
  value = var.pw
}
