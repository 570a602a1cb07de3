# Variables of every type constraint, with defaults, converted to their
# declared types, flowing into terraform_data and outputs.

variable "name" {
  type    = string
  default = "web"
}

variable "replicas" {
  type    = number
  default = "3" # a string converted to number
}

variable "enabled" {
  type    = bool
  default = "true"
}

variable "zones" {
  type    = list(string)
  default = ["eu-1a", "eu-1b"]
}

variable "ports" {
  type    = set(number)
  default = [443, 80, 443]
}

variable "limits" {
  type = map(number)
  default = {
    cpu    = 2
    memory = "512"
  }
}

variable "server" {
  type = object({
    image = string
    size  = number
    tags  = map(string)
  })
  default = {
    image = "debian-12"
    size  = 20
    tags  = { team = "infra" }
    extra = "dropped by the conversion"
  }
}

variable "pair" {
  type    = tuple([string, number, bool])
  default = ["a", 1, false]
}

variable "anything" {
  type    = any
  default = { list = [1, 2], text = "x" }
}

variable "untyped" {
  default = ["one", 2]
}

resource "terraform_data" "server" {
  input = {
    name     = var.name
    replicas = var.replicas
    enabled  = var.enabled
    zones    = var.zones
    ports    = var.ports
    limits   = var.limits
    server   = var.server
  }
}

resource "terraform_data" "pair" {
  input = var.pair
}

output "replicas_plus_one" {
  value = var.replicas + 1
}

output "ports" {
  value = var.ports
}

output "server" {
  value = var.server
}

output "anything" {
  value = var.anything
}

output "untyped" {
  value = var.untyped
}

output "pair" {
  value = var.pair
}
