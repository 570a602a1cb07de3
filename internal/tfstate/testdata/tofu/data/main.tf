# Data resources beside managed ones, one in a module.
resource "local_file" "src" {
  filename = "${path.module}/src.txt"
  content  = "data source content"
}

data "local_file" "read" {
  filename   = local_file.src.filename
  depends_on = [local_file.src]
}

data "tls_public_key" "pk" {
  private_key_pem = tls_private_key.k.private_key_pem
}

resource "tls_private_key" "k" {
  algorithm = "ECDSA"
}

output "content" {
  value = data.local_file.read.content
}
