terraform {
  required_version = ">= 1.6.0, < 2.0.0"
  required_providers {
    aws = {
      source                = "hashicorp/aws"
      version               = "~> 6.0"
      configuration_aliases = [aws.west]
    }
    mycloud = {
      source  = "example/mycloud"
      version = "1.2.3"
    }
  }
  backend "s3" {
    bucket = "states"
    key    = "prod/terraform.tfstate"
    region = "eu-west-1"
  }
}
variable "token" {
  sensitive = true
  default   = "hunter22-token"
}
provider "aws" {
  region = "eu-central-1"
  default_tags {
    tags = { team = "core" }
  }
}
provider "aws" {
  alias  = "west"
  region = "eu-west-1"
}
provider "mycloud" {
  token = var.token
}
resource "aws_s3_bucket" "central" {
  bucket = "c"
}
resource "aws_s3_bucket" "west" {
  provider = aws.west
  bucket   = "w"
}
resource "mycloud_thing" "t" {}
resource "random_pet" "implied" {}
