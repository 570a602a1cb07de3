variable "plain" {}
variable "str" {
  type    = string
  default = "from-default"
}
variable "from_env" {
  type = string
}
variable "from_file" {
  type = number
}
variable "from_auto" {
  type    = list(string)
  default = []
}
variable "from_arg" {
  type    = map(string)
  default = {}
}
variable "obj" {
  type = object({
    name    = string
    size    = optional(number, 2)
    enabled = optional(bool)
    tags    = optional(map(string), { team = "core" })
  })
  default = { name = "web" }
}
variable "not_null" {
  type     = string
  nullable = false
  default  = "kept"
}
variable "password" {
  type      = string
  sensitive = true
  default   = "hunter22-pw"
}
resource "null_resource" "all" {
  triggers = {
    plain     = var.plain
    str       = var.str
    from_env  = var.from_env
    from_file = var.from_file
    from_auto = join(",", var.from_auto)
    from_arg  = jsonencode(var.from_arg)
    obj       = jsonencode(var.obj)
    not_null  = var.not_null
  }
}
resource "null_resource" "secret" {
  triggers = {
    pw = var.password
  }
}
