# Every error of the files at once, a syntax error among them (the
# redefined local): the rest of its file is still read, as OpenTofu reads it.
resource "terraform_data" {}
resource "terraform_data" "1bad" {}
variable "count" {}
variable "ok" {
  type = strin
}
variable "ok2" {
  type = list(string, number)
}
variable "ok3" {
  default = var.ok
}
unknownblock "x" {}
locals {
  a = 1
  a = 2
}
output "o" {}
module "m" {}
provider "x" {
  alias = "bad alias"
}
terraform {
  required_version = ">= 99.0"
  required_providers {
    null = "hashicorp/null"
  }
}
