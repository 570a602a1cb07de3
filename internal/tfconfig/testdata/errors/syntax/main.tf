resource "null_resource" "a" {
  triggers = {
    x = "unterminated
  }
}
