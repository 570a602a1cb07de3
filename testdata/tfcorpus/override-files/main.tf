# Override files: override.tf and *_override.tf(.json) merge into the
# blocks they name, attribute by attribute, in lexical order.

variable "size" {
  type    = string
  default = "small"
}

locals {
  region = "eu-west"
  zone   = "a"
}

resource "terraform_data" "server" {
  input = {
    size   = var.size
    region = local.region
  }
}

resource "terraform_data" "kept" {
  input = "not overridden"
}

output "zone" {
  value = local.zone
}
