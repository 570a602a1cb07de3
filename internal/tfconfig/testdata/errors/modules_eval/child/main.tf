variable "needed" {
  type = string
}
variable "typed" {
  type    = number
  default = 1
}
provider "aws" {
  region = "eu-west-1"
}
resource "aws_s3_bucket" "b" {
  provider = aws.elsewhere
}
