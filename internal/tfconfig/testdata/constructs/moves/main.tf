resource "null_resource" "new" {
  count = 2
}
resource "null_resource" "hand" {
  for_each = { a = "id-a", b = "id-b" }
}
moved {
  from = null_resource.old
  to   = null_resource.new
}
moved {
  from = null_resource.one
  to   = null_resource.new[1]
}
moved {
  from = module.before
  to   = module.after
}
module "after" {
  source = "./m"
}
import {
  for_each = { a = "id-a", b = "id-b" }
  to       = null_resource.hand[each.key]
  id       = each.value
}
removed {
  from = null_resource.forgotten
  lifecycle {
    destroy = false
  }
}
removed {
  from = module.gone
}
