# hashicorp/random: every resource type, with keepers, sensitive results
# and the attributes known at plan (the configured ones).

terraform {
  required_providers {
    random = {
      source  = "hashicorp/random"
      version = "3.9.0"
    }
  }
}

resource "random_pet" "name" {
  length    = 3
  separator = "_"
  prefix    = "srv"
  keepers = {
    image = "debian-12"
  }
}

resource "random_string" "suffix" {
  length  = 6
  upper   = false
  special = false
}

resource "random_password" "db" {
  length           = 24
  override_special = "!#%"
  min_numeric      = 2
}

resource "random_id" "bucket" {
  byte_length = 6
  prefix      = "bkt-"
}

resource "random_integer" "port" {
  min  = 8000
  max  = 8999
  seed = "fixed"
}

resource "random_shuffle" "zones" {
  input        = ["a", "b", "c", "d"]
  result_count = 2
}

resource "random_uuid" "request" {}

resource "random_bytes" "key" {
  length = 16
}

output "names" {
  value = {
    pet    = random_pet.name.id
    suffix = random_string.suffix.result
    bucket = random_id.bucket.hex
    port   = random_integer.port.result
    zones  = random_shuffle.zones.result
  }
}

output "password" {
  value     = random_password.db.result
  sensitive = true
}
