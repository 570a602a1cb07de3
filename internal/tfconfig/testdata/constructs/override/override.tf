resource "null_resource" "a" {
  triggers = {
    size = "replaced-whole-attribute"
  }
  nested {
    n = 2
  }
}
