variable "owner" {
  type = string
}

resource "terraform_data" "tag" {
  input = var.owner
}

output "tags" {
  value = { owner = var.owner, where = path.module }
}
