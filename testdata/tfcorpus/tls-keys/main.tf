# hashicorp/tls: keys, a self-signed CA, a request signed by it, and a
# public key read at plan from a key committed beside the configuration.

terraform {
  required_providers {
    tls = {
      source  = "hashicorp/tls"
      version = "4.2.1"
    }
  }
}

resource "tls_private_key" "ca" {
  algorithm   = "ECDSA"
  ecdsa_curve = "P384"
}

resource "tls_private_key" "server" {
  algorithm = "ED25519"
}

resource "tls_self_signed_cert" "ca" {
  private_key_pem       = tls_private_key.ca.private_key_pem
  is_ca_certificate     = true
  validity_period_hours = 8760
  allowed_uses          = ["cert_signing", "crl_signing"]

  subject {
    common_name  = "Test CA"
    organization = "Kyku corpus"
  }
}

resource "tls_cert_request" "server" {
  private_key_pem = tls_private_key.server.private_key_pem
  dns_names       = ["example.com", "www.example.com"]

  subject {
    common_name = "example.com"
  }
}

resource "tls_locally_signed_cert" "server" {
  cert_request_pem      = tls_cert_request.server.cert_request_pem
  ca_private_key_pem    = tls_private_key.ca.private_key_pem
  ca_cert_pem           = tls_self_signed_cert.ca.cert_pem
  validity_period_hours = 720
  allowed_uses          = ["server_auth", "digital_signature"]
}

data "tls_public_key" "committed" {
  private_key_pem = file("${path.module}/deploy.pem")
}

output "committed_public_key" {
  value = data.tls_public_key.committed.public_key_openssh
}

output "committed_fingerprint" {
  value = data.tls_public_key.committed.public_key_fingerprint_sha256
}
