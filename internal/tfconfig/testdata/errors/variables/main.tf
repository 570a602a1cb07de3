variable "bad_default" {
  type    = list(string)
  default = { a = 1 }
}
variable "not_null" {
  type     = string
  nullable = false
  default  = null
}
variable "quoted" {
  type = "string"
}
variable "count" {}
