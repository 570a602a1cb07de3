variable "size" {
  default = "large"
}
output "o" {
  value = "overridden"
}
