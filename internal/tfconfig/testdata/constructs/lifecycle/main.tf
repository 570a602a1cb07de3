resource "null_resource" "a" {
  triggers = { v = 1, w = 2 }
  lifecycle {
    create_before_destroy = true
    prevent_destroy       = true
    ignore_changes        = [triggers["w"]]
  }
}
resource "null_resource" "b" {
  triggers = { v = 1 }
  depends_on = [null_resource.a, module.m]
  lifecycle {
    ignore_changes = all
  }
}
resource "null_resource" "c" {
  _ {
    count = "an argument named count, not the meta-argument"
  }
}
module "m" {
  source = "./m"
}
