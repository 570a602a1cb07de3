variable "tag" {
  type = string
}

resource "terraform_data" "svc" {
  count = 2
  input = "${var.tag}-${count.index}"
}

output "ids" {
  value = terraform_data.svc[*].id
}
