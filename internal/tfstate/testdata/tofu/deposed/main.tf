# A deposed object: a create_before_destroy replacement interrupted while it
# destroys the old object leaves that object in state, deposed, beside the
# new current one (the steps interrupt the second apply).
variable "gen" {
  type    = number
  default = 1
}

resource "time_sleep" "d" {
  destroy_duration = "300s"
  triggers = {
    gen = var.gen
  }
  lifecycle {
    create_before_destroy = true
  }
}
