variable "seed" {
  type = string
}

resource "null_resource" "leaf" {
  triggers = {
    seed = var.seed
  }
}

output "value" {
  value = null_resource.leaf.id
}
