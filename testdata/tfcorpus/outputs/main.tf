# Outputs of every type: known, unknown, partly unknown, sensitive,
# null, with a description, depends_on and a precondition.

terraform {
  required_providers {
    random = {
      source  = "hashicorp/random"
      version = "3.9.0"
    }
  }
}

resource "random_password" "db" {
  length = 20
}

resource "random_id" "server" {
  byte_length = 4
}

output "string" {
  description = "A plain string."
  value       = "hello"
}

output "number" {
  value = 42.5
}

output "bool" {
  value = false
}

output "null" {
  value = null
}

output "list" {
  value = ["a", "b"]
}

output "empty_map" {
  value = {}
}

output "object" {
  value = { name = "x", ports = [80, 443], nested = { deep = true } }
}

output "unknown" {
  value = random_id.server.hex
}

output "partly_unknown" {
  value = {
    known   = "yes"
    unknown = random_id.server.b64_url
    list    = ["k", random_id.server.dec]
  }
}

output "password" {
  value     = random_password.db.result
  sensitive = true
}

output "password_length" {
  value = random_password.db.length
}

output "sensitive_known" {
  value     = "known but secret"
  sensitive = true
}

output "after_password" {
  value      = "ordered"
  depends_on = [random_password.db]

  precondition {
    condition     = random_password.db.length >= 16
    error_message = "Passwords are at least 16 characters."
  }
}
