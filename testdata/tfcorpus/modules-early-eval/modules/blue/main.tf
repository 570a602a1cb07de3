variable "name" {
  type = string
}

variable "tags_dir" {
  type = string
}

module "tags" {
  source = var.tags_dir
  owner  = "blue-${var.name}"
}

resource "terraform_data" "blue" {
  input = merge(module.tags.tags, { name = var.name })
}

output "described" {
  value = "blue ${var.name} at ${path.module}"
}
