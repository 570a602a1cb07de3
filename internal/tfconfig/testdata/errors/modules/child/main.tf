variable "needed" {
  type = string
}
provider "aws" {
  region = "eu-west-1"
}
resource "aws_s3_bucket" "b" {
  provider = aws.elsewhere
}
