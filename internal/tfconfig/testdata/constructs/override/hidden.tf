resource "null_resource" "hidden" {}
