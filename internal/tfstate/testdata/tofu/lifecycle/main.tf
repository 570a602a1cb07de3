# create_before_destroy, explicit and implicit dependencies, time resources.
resource "time_static" "t" {}

resource "random_pet" "base" {}

resource "random_pet" "cbd" {
  prefix = random_pet.base.id
  lifecycle {
    create_before_destroy = true
  }
}

resource "null_resource" "after" {
  depends_on = [random_pet.cbd, time_static.t]
  triggers = {
    at = time_static.t.rfc3339
  }
}

resource "time_sleep" "wait" {
  create_duration = "1s"
  depends_on      = [null_resource.after]
}
