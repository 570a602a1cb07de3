# A root setting arguments secret only in parts (record.sh applies it
# with OpenTofu): a map with one entry read from a sensitive variable, a
# list of objects with one such attribute, and an object holding a list
# and an object with one each. Its terraform.tfstate is what OpenTofu
# wrote: each sensitive path in sensitive_attributes.
terraform {
  required_providers {
    fwtest  = { source = "kyku/fwtest", version = "0.1.0" }
    sdktest = { source = "kyku/sdktest", version = "0.1.0" }
  }
}

provider "fwtest" {
  dir = "${path.module}/cloud"
}

provider "sdktest" {
  dir = "${path.module}/cloud"
}

variable "token" {
  type      = string
  sensitive = true
  default   = "tok-s3cr3t-ns"
}

variable "env" {
  type    = string
  default = "prod"
}

resource "fwtest_item" "app" {
  name = "${terraform.workspace}-app"
  tags = { env = var.env, token = var.token }
  endpoints = [
    { host = "a.internal", port = 443 },
    { host = var.token },
  ]
}

resource "sdktest_item" "db" {
  name = "${terraform.workspace}-db"
  tags = { env = var.env, token = var.token }
}

resource "terraform_data" "nested" {
  input = {
    env  = var.env
    list = ["open", var.token]
    obj  = { key = var.token, other = 1 }
  }
}
