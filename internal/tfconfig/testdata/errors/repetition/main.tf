variable "secret_keys" {
  type      = set(string)
  sensitive = true
  default   = ["a"]
}
resource "null_resource" "negative" {
  count = -1
}
resource "null_resource" "null_count" {
  count = null
}
resource "null_resource" "fraction" {
  count = 1.5
}
resource "null_resource" "text" {
  count = "many"
}
resource "null_resource" "list" {
  for_each = ["a", "b"]
}
resource "null_resource" "sensitive" {
  for_each = var.secret_keys
}
resource "null_resource" "null_each" {
  for_each = null
}
resource "null_resource" "numbers" {
  for_each = toset([1, 2])
}
resource "null_resource" "unknown" {
  for_each = { for k in null_resource.list : k.id => k }
}
resource "null_resource" "no_count" {
  triggers = {
    i = count.index
    k = each.key
  }
}
