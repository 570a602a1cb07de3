# A variables file with a syntax error: its error alone, not the values it
# may hold said missing.
variable "l" {
  type = list(string)
}

variable "m" {
  type = map(number)
}
