terraform {
  required_providers {
    fwtest = {
      source = "kyku/fwtest"
    }
    random = {
      source = "hashicorp/random"
    }
  }
}

variable "name" {
  type = string
}

variable "image" {
  type = string
}

variable "replicas" {
  type = number
}

variable "hostname" {
  type    = string
  default = null
}

variable "env" {
  type = map(string)
}

resource "random_password" "db" {
  length  = 20
  special = false
}

resource "fwtest_item" "app" {
  name  = var.name
  value = replace(var.image, ":", "@")
  tags = merge(var.env, {
    REPLICAS = tostring(var.replicas)
  })
  secret = random_password.db.result
}

resource "terraform_data" "dns" {
  count = var.hostname == null ? 0 : 1
  input = {
    record = var.hostname
    target = fwtest_item.app.id
  }
}

output "id" {
  value = fwtest_item.app.id
}

output "endpoint" {
  value = var.hostname == null ? null : "https://${var.hostname}/"
}

output "db_password" {
  value     = random_password.db.result
  sensitive = true
}
