# optional() object attributes, with and without defaults, nested, in
# lists and maps of objects.

variable "service" {
  type = object({
    name     = string
    port     = optional(number, 8080)
    protocol = optional(string)
    health = optional(object({
      path     = optional(string, "/healthz")
      interval = optional(number, 30)
    }), {})
    labels = optional(map(string), {})
  })
  default = {
    name = "api"
  }
}

variable "listeners" {
  type = list(object({
    port = number
    tls  = optional(bool, false)
    cert = optional(string)
  }))
  default = [
    { port = 80 },
    { port = 443, tls = true, cert = "main" },
  ]
}

variable "buckets" {
  type = map(object({
    versioning = optional(bool, true)
    lifecycle  = optional(number)
  }))
  default = {
    logs   = { lifecycle = 30 }
    assets = { versioning = false }
  }
}

resource "terraform_data" "service" {
  input = var.service
}

resource "terraform_data" "listener" {
  count = length(var.listeners)
  input = var.listeners[count.index]
}

resource "terraform_data" "bucket" {
  for_each = var.buckets
  input = {
    name       = each.key
    versioning = each.value.versioning
    expires    = each.value.lifecycle != null ? "${each.value.lifecycle}d" : "never"
  }
}

output "service" {
  value = var.service
}

output "tls_ports" {
  value = [for l in var.listeners : l.port if l.tls]
}
