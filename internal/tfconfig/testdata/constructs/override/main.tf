variable "size" {
  default = "small"
}
resource "null_resource" "a" {
  triggers = {
    size = var.size
    keep = "kept"
  }
  nested {
    n = 1
  }
  other {
    o = 1
  }
}
output "o" {
  value = "original"
}
