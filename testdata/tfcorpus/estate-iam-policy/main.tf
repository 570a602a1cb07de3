# Real-world shape: IAM-style policy documents built with jsonencode from
# variables with for expressions and conditionals, one role per team, and
# a policy that names a bucket known only after apply.

terraform {
  required_providers {
    random = {
      source  = "hashicorp/random"
      version = "3.9.0"
    }
    local = {
      source  = "hashicorp/local"
      version = "2.9.0"
    }
  }
}

variable "account_id" {
  type    = string
  default = "123456789012"
}

variable "buckets" {
  type = map(object({
    readers = list(string)
    writers = optional(list(string), [])
  }))
  default = {
    assets = { readers = ["web", "cdn"], writers = ["ci"] }
    logs   = { readers = ["ops"] }
  }
}

locals {
  teams = distinct(flatten([for b in var.buckets : concat(b.readers, b.writers)]))

  statements = {
    for team in local.teams : team => concat(
      [for name, b in var.buckets : {
        Sid      = "Read${title(name)}"
        Effect   = "Allow"
        Action   = ["s3:GetObject", "s3:ListBucket"]
        Resource = ["arn:aws:s3:::${name}", "arn:aws:s3:::${name}/*"]
      } if contains(b.readers, team)],
      [for name, b in var.buckets : {
        Sid      = "Write${title(name)}"
        Effect   = "Allow"
        Action   = ["s3:PutObject"]
        Resource = ["arn:aws:s3:::${name}/*"]
        Condition = {
          StringEquals = { "aws:PrincipalAccount" = var.account_id }
        }
      } if contains(b.writers, team)],
    )
  }

  policies = {
    for team, st in local.statements : team => jsonencode({
      Version   = "2012-10-17"
      Statement = st
    })
  }

  assume_role = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Effect    = "Allow"
      Principal = { Service = "ec2.amazonaws.com" }
      Action    = "sts:AssumeRole"
    }]
  })
}

resource "terraform_data" "role" {
  for_each = toset(local.teams)
  input = {
    name               = "team-${each.key}"
    assume_role_policy = local.assume_role
    policy             = local.policies[each.key]
  }
}

resource "random_id" "bucket" {
  byte_length = 4
  prefix      = "uploads-"
}

resource "terraform_data" "uploads_policy" {
  input = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Effect   = "Allow"
      Action   = "s3:PutObject"
      Resource = "arn:aws:s3:::${random_id.bucket.hex}/*"
    }]
  })
}

resource "local_file" "policy" {
  for_each = local.policies
  filename = "${path.module}/policies/${each.key}.json"
  content  = each.value
}

output "policies" {
  value = { for t, p in local.policies : t => jsondecode(p) }
}
