# Type conversion functions and automatic conversion, can() and try().

variable "maybe_number" {
  type    = string
  default = "12"
}

locals {
  raw = jsondecode("{\"a\": 1, \"b\": [\"x\", \"y\"]}")
}

output "conversion" {
  value = {
    tobool         = [tobool(true), tobool("true"), tobool("false"), tobool(null) == null]
    tonumber       = [tonumber(1), tonumber("1"), tonumber("1.5e3"), tonumber(null) == null]
    tostring       = [tostring("hello"), tostring(1), tostring(true), tostring(null) == null]
    tolist         = tolist(["a", "b", 3])
    toset          = toset(["c", "b", "b"])
    tomap          = tomap({ a = 1, b = "two" })
    mixed_list     = tolist([1, "2", true])
    can            = [can(tonumber(var.maybe_number)), can(tonumber("x")), can(local.raw.c), can(local.raw.b[1])]
    try            = [try(local.raw.c, "fallback"), try(local.raw.a, "fallback"), try(tonumber("x"), tonumber("5"), 0)]
    auto_string    = "${1 + 1}-${true}"
    auto_number    = "5" * 2
    auto_bool      = "true" ? "yes" : "no"
    number_compare = 1.0 == 1
  }
}

resource "terraform_data" "typed" {
  input = {
    as_number = tonumber(var.maybe_number)
    as_list   = tolist(toset(["b", "a"]))
    as_map    = tomap({ x = "1", y = 2 })
  }
}
