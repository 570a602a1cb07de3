# validation blocks (every one passes), nullable, and a null default.

variable "environment" {
  type    = string
  default = "staging"

  validation {
    condition     = contains(["dev", "staging", "prod"], var.environment)
    error_message = "The environment must be dev, staging or prod."
  }
}

variable "cidr" {
  type    = string
  default = "10.20.0.0/16"

  validation {
    condition     = can(cidrhost(var.cidr, 0))
    error_message = "The cidr must be a valid IPv4 CIDR block."
  }

  validation {
    condition     = tonumber(split("/", var.cidr)[1]) <= 24
    error_message = "The block must be /24 or larger."
  }
}

variable "instance_count" {
  type     = number
  default  = 2
  nullable = false

  validation {
    condition     = var.instance_count >= 1 && var.instance_count <= 5
    error_message = "Between 1 and 5 instances."
  }
}

variable "description" {
  type     = string
  default  = null
  nullable = true
}

variable "owner" {
  type     = string
  nullable = false
  default  = "platform"
}

resource "terraform_data" "net" {
  count = var.instance_count
  input = {
    env         = var.environment
    cidr        = cidrsubnet(var.cidr, 8, count.index)
    description = coalesce(var.description, "none")
    owner       = var.owner
    is_null     = var.description == null
  }
}

output "description_is_null" {
  value = var.description == null
}
