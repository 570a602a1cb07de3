# What the providers' schemas refuse, each where it is: an argument the
# schema lacks (with OpenTofu's "did you mean"), a required one missing, a
# value of the wrong type, a read-only attribute set.

terraform {
  required_providers {
    null = {
      source  = "hashicorp/null"
      version = "3.3.1"
    }
    random = {
      source  = "hashicorp/random"
      version = "3.9.0"
    }
  }
}

resource "null_resource" "typo" {
  trigers = { x = "1" }
}

resource "random_integer" "n" {
  min = "low"
}

resource "null_resource" "read_only" {
  id = "y"
}
