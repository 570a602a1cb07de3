# Sensitive values: attributes the provider's schema marks sensitive, values
# marked sensitive in the configuration (paths into maps and lists), and a
# sensitive output.
variable "token" {
  type      = string
  default   = "s3cr3t-token"
  sensitive = true
}

resource "tls_private_key" "k" {
  algorithm = "ED25519"
}

resource "random_password" "pw" {
  length = 16
}

resource "null_resource" "uses" {
  triggers = {
    token = var.token
    plain = "visible"
  }
}

resource "terraform_data" "nested" {
  input = {
    list = ["open", var.token]
    obj  = { key = var.token, other = 1 }
  }
}

output "password" {
  value     = random_password.pw.result
  sensitive = true
}

output "public_key" {
  value = tls_private_key.k.public_key_openssh
}
