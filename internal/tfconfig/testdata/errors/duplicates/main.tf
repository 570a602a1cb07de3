variable "v" {}
variable "v" {}
locals {
  l = 1
}
locals {
  l = 2
}
output "o" {
  value = 1
}
output "o" {
  value = 2
}
resource "null_resource" "r" {}
resource "null_resource" "r" {}
data "null_data_source" "d" {}
data "null_data_source" "d" {}
module "m" {
  source = "./m"
}
module "m" {
  source = "./m"
}
provider "aws" {}
provider "aws" {}
provider "aws" {
  alias = "x"
}
provider "aws" {
  alias = "x"
}
resource "null_resource" "lc" {
  lifecycle {}
  lifecycle {}
}
terraform {
  backend "local" {}
}
terraform {
  backend "local" {}
}
