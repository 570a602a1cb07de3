# Values that fail their variables' validation (from terraform.tfvars):
# every failure is reported, all at once.

variable "environment" {
  type = string

  validation {
    condition     = contains(["dev", "prod"], var.environment)
    error_message = "The environment must be dev or prod."
  }
}

variable "replicas" {
  type = number

  validation {
    condition     = var.replicas > 0
    error_message = "At least one replica."
  }
}

variable "name" {
  type     = string
  nullable = false
}

resource "terraform_data" "app" {
  input = [var.environment, var.replicas, var.name]
}
