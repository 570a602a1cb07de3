resource "null_resource" "nope" {}
variable "nope" {}
output "nope" {
  value = 1
}
resource "null_resource" "a" {
  depends_on = [null_resource.a]
}
