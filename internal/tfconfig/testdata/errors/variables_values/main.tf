variable "required" {
  type = string
}
variable "typed" {
  type = number
}
variable "checked" {
  type    = string
  default = "short"
  validation {
    condition     = length(var.checked) > 10
    error_message = "The checked value must be longer than 10 characters."
  }
}
variable "secret" {
  type      = number
  sensitive = true
}
variable "from_file" {
  type = bool
}
