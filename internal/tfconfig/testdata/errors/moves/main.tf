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
variable "secret_id" {
  default   = "x"
  sensitive = true
}
import {
  to = null_resource.kept
  id = var.secret_id
}
import {
  to = null_resource.kept
  id = null
}
import {
  to = null_resource.kept
  id = ["not", "an", "id"]
}
import {
  to = null_resource.still
  id = 12345
}
import {
  to = null_resource.kept
  id = null_resource.still.id
}
