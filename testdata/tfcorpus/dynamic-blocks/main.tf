# dynamic blocks over a variable, with a custom iterator, a conditional
# block (zero or one), and blocks written out beside dynamic ones.

terraform {
  required_providers {
    sdktest = {
      source  = "kyku/sdktest"
      version = "0.1.0"
    }
    tls = {
      source  = "hashicorp/tls"
      version = "4.2.1"
    }
  }
}

provider "sdktest" {
  dir = "${path.module}/cloud"
}

variable "ingress" {
  type = list(object({
    port = number
    cidr = optional(string)
  }))
  default = [
    { port = 22, cidr = "10.0.0.0/8" },
    { port = 443 },
  ]
}

variable "subject" {
  type = object({
    common_name  = string
    organization = optional(string)
  })
  default = {
    common_name  = "example.com"
    organization = "Example Ltd"
  }
}

resource "sdktest_item" "firewall" {
  name = "firewall"

  dynamic "rule" {
    for_each = var.ingress
    content {
      port = rule.value.port
      cidr = rule.value.cidr
    }
  }
}

resource "sdktest_item" "mixed" {
  name = "mixed"

  rule {
    port = 80
  }

  dynamic "rule" {
    for_each = { ssh = 22 }
    iterator = r
    content {
      port = r.value
      cidr = "192.168.${index(keys({ ssh = 22 }), r.key)}.0/24"
    }
  }
}

resource "tls_private_key" "ca" {
  algorithm = "ECDSA"
}

resource "tls_self_signed_cert" "ca" {
  private_key_pem       = tls_private_key.ca.private_key_pem
  validity_period_hours = 24
  allowed_uses          = ["cert_signing"]
  is_ca_certificate     = true

  dynamic "subject" {
    for_each = var.subject == null ? [] : [var.subject]
    content {
      common_name  = subject.value.common_name
      organization = subject.value.organization
    }
  }
}
