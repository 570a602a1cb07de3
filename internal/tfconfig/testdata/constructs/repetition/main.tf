variable "zones" {
  default = ["a", "b"]
}
variable "users" {
  default = {
    alice = { admin = true }
    bob   = { admin = false }
  }
}
resource "null_resource" "counted" {
  count = length(var.zones)
  triggers = {
    zone  = var.zones[count.index]
    index = count.index
  }
}
resource "null_resource" "zero" {
  count = 0
}
resource "null_resource" "mapped" {
  for_each = var.users
  triggers = {
    name  = each.key
    admin = each.value.admin
  }
}
resource "null_resource" "set" {
  for_each = toset(var.zones)
  triggers = {
    zone = each.value
  }
}
resource "null_resource" "readers" {
  for_each = null_resource.mapped
  triggers = {
    of    = each.value.id
    first = null_resource.counted[0].id
    all   = join(",", null_resource.counted[*].id)
    keys  = join(",", keys(null_resource.mapped))
    set   = null_resource.set["b"].name
  }
}
output "count" {
  value = length(null_resource.counted)
}
output "ids" {
  value = { for k, r in null_resource.mapped : k => r.id }
}
