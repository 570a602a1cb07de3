# Outputs of every type, a provider alias, terraform_data, strings that
# encoding/json escapes (<, >, &, U+2028) and non-ASCII text.
terraform {
  required_providers {
    random = { source = "hashicorp/random" }
    null   = { source = "hashicorp/null" }
    local  = { source = "hashicorp/local" }
  }
}

provider "random" {
  alias = "second"
}

resource "random_pet" "name" {
  length = 2
}

resource "random_integer" "port" {
  provider = random.second
  min      = 1024
  max      = 65535
}

resource "null_resource" "web" {
  triggers = {
    name  = random_pet.name.id
    html  = "<b>a & b</b>"
    utf   = "naïve – ünïcode \u2028 line"
    empty = ""
  }
}

resource "terraform_data" "replay" {
  input = {
    n    = 1.5
    big  = 12345678901234567890
    list = [1, 2, 3]
  }
}

resource "local_file" "note" {
  filename = "${path.module}/note.txt"
  content  = "hello\n"
}

output "string" {
  value = random_pet.name.id
}

output "number" {
  value = random_integer.port.result
}

output "bool" {
  value = true
}

output "list" {
  value = tolist(["a", "b"])
}

output "tuple" {
  value = ["a", 1, false]
}

output "set" {
  value = toset(["x", "y"])
}

output "map" {
  value = tomap({ a = 1, b = 2 })
}

output "object" {
  value = { name = random_pet.name.id, ports = [80, 443], nested = { ok = true } }
}

output "null" {
  value = null
}

output "float" {
  value = 0.1 + 0.2
}

output "html" {
  value = "<tag> & </tag>"
}

output "secret" {
  value     = "hunter2"
  sensitive = true
}
