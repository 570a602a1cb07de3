# precondition and postcondition on resources and an output (all pass or
# wait for apply), self in a postcondition, prevent_destroy and
# create_before_destroy on new resources.

terraform {
  required_providers {
    random = {
      source  = "hashicorp/random"
      version = "3.9.0"
    }
  }
}

variable "length" {
  type    = number
  default = 16
}

resource "random_string" "token" {
  length  = var.length
  special = false

  lifecycle {
    precondition {
      condition     = var.length >= 8
      error_message = "Tokens are at least 8 characters."
    }
    postcondition {
      condition     = length(self.result) == var.length
      error_message = "The token has the length asked for."
    }
    create_before_destroy = true
  }
}

resource "terraform_data" "guarded" {
  input = random_string.token.length

  lifecycle {
    prevent_destroy = true
    postcondition {
      condition     = self.input >= 8
      error_message = "Guarded input is at least 8."
    }
  }
}

output "token_length" {
  value = random_string.token.length

  precondition {
    condition     = random_string.token.length == var.length
    error_message = "The token length matches the variable."
  }
}
