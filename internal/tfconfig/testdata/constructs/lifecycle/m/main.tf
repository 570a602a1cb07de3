resource "null_resource" "inner" {}
