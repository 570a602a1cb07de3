terraform {
  required_providers {
    kt = {
      source  = "kyku/fwtest"
      version = "0.1.0"
    }
  }
}

variable "prefix" {
  type = string
}

output "bits" {
  value = provider::kt::parse_cidr(var.prefix).bits
}
