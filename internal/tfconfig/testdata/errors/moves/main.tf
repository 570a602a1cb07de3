resource "null_resource" "still" {}
resource "null_resource" "kept" {}
moved {
  from = null_resource.still
  to   = null_resource.kept
}
removed {
  from = null_resource.kept
}
import {
  to = null_resource.absent
  id = "x"
}
import {
  to = null_resource.kept
  id = ""
}
