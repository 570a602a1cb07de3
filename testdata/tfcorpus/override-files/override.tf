variable "size" {
  default = "large"
}

locals {
  region = "us-east"
}
