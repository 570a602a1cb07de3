# Real-world shape: a site's certificate validation, where for_each runs
# over an attribute of another resource that is known at plan (the names
# the request was configured with), one DNS record per name.

terraform {
  required_providers {
    tls = {
      source  = "hashicorp/tls"
      version = "4.2.1"
    }
  }
}

variable "domain" {
  type    = string
  default = "example.org"
}

variable "alternative_names" {
  type    = list(string)
  default = ["www", "static"]
}

resource "tls_private_key" "site" {
  algorithm = "RSA"
  rsa_bits  = 2048
}

resource "tls_cert_request" "site" {
  private_key_pem = tls_private_key.site.private_key_pem
  dns_names       = concat([var.domain], [for n in var.alternative_names : "${n}.${var.domain}"])

  subject {
    common_name = var.domain
  }
}

resource "terraform_data" "validation_record" {
  for_each = { for name in tls_cert_request.site.dns_names : name => "_acme-challenge.${name}" }
  input = {
    name  = each.value
    type  = "TXT"
    value = sha256(each.key)
  }
}

resource "terraform_data" "validation" {
  input = {
    certificate = tls_cert_request.site.cert_request_pem
    records     = [for r in terraform_data.validation_record : r.input.name]
  }
}

output "records" {
  value = sort([for r in terraform_data.validation_record : r.input.name])
}
