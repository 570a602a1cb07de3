variable "url" {
  type = string
}
resource "null_resource" "page" {
  triggers = {
    url = var.url
  }
}
output "url" {
  value = null_resource.page.id
}
