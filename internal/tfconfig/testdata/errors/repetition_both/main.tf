resource "null_resource" "both" {
  count    = 1
  for_each = toset(["a"])
}
