variable "vpc" {
  type = string
}

variable "zone" {
  type = string
}

variable "cidr" {
  type = string
}

resource "terraform_data" "subnet" {
  input = {
    name = "${var.vpc}-${var.zone}"
    cidr = var.cidr
  }
}

output "cidr" {
  value = terraform_data.subnet.input.cidr
}

output "id" {
  value = terraform_data.subnet.id
}

output "module_path" {
  value = path.module
}
