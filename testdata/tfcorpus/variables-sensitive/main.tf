# Sensitive variables stay sensitive through expressions, into resource
# attributes and outputs; sensitive() and nonsensitive() change it.

variable "db_password" {
  type      = string
  sensitive = true
  default   = "correct-horse-battery"
}

variable "settings" {
  type = object({
    user  = string
    token = string
  })
  sensitive = true
  default = {
    user  = "admin"
    token = "t0ken"
  }
}

locals {
  connection   = "postgres://app:${var.db_password}@db:5432/app"
  password_len = nonsensitive(length(var.db_password))
  marked       = sensitive("not really secret")
}

resource "terraform_data" "db" {
  input = {
    name     = "app"
    password = var.db_password
  }
}

resource "terraform_data" "connection" {
  input = local.connection
}

resource "terraform_data" "settings" {
  input = var.settings
}

resource "terraform_data" "plain" {
  input = {
    length = local.password_len
    user   = nonsensitive(var.settings.user)
  }
}

output "connection" {
  value     = local.connection
  sensitive = true
}

output "password_length" {
  value = local.password_len
}

output "marked" {
  value     = local.marked
  sensitive = true
}

output "is_sensitive" {
  value = issensitive(var.db_password)
}
