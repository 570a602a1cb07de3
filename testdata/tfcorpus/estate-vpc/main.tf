# Real-world shape: a VPC with a public and a private subnet per zone
# carved with cidrsubnet, a NAT gateway per zone or one for all, and
# route tables. fwtest_item stands for the network objects; the route
# tables show that names are per type (fwtest_item.public and
# sdktest_item.public coexist, as aws_subnet.public and
# aws_route_table.public do).

terraform {
  required_version = ">= 1.6.0"

  required_providers {
    fwtest = {
      source  = "kyku/fwtest"
      version = "0.1.0"
    }
    sdktest = {
      source  = "kyku/sdktest"
      version = "0.1.0"
    }
  }
}

provider "fwtest" {
  dir = "${path.module}/cloud"
}

provider "sdktest" {
  dir = "${path.module}/cloud"
}

variable "name" {
  type    = string
  default = "main"
}

variable "cidr" {
  type    = string
  default = "10.0.0.0/16"
}

variable "zones" {
  type    = list(string)
  default = ["eu-central-1a", "eu-central-1b", "eu-central-1c"]
}

variable "single_nat_gateway" {
  type    = bool
  default = false
}

variable "tags" {
  type    = map(string)
  default = { Environment = "prod", Team = "network" }
}

locals {
  zone_index = { for i, z in var.zones : z => i }
  public_cidrs = { for z, i in local.zone_index : z => cidrsubnet(var.cidr, 8, i) }
  private_cidrs = { for z, i in local.zone_index : z => cidrsubnet(var.cidr, 4, i + 1) }
  nat_zones = var.single_nat_gateway ? [var.zones[0]] : var.zones
}

resource "fwtest_item" "vpc" {
  name  = "${var.name}-vpc"
  value = var.cidr
  tags  = merge(var.tags, { Name = "${var.name}-vpc" })
}

resource "fwtest_item" "public" {
  for_each = local.public_cidrs
  name     = "${var.name}-public-${each.key}"
  value    = each.value
  tags = merge(var.tags, {
    Name = "${var.name}-public-${each.key}"
    Tier = "public"
    Vpc  = fwtest_item.vpc.id
  })
}

resource "fwtest_item" "private" {
  for_each = local.private_cidrs
  name     = "${var.name}-private-${each.key}"
  value    = each.value
  tags = merge(var.tags, {
    Name = "${var.name}-private-${each.key}"
    Tier = "private"
    Vpc  = fwtest_item.vpc.id
  })
}

resource "fwtest_item" "nat" {
  for_each = toset(local.nat_zones)
  name     = "${var.name}-nat-${each.key}"
  value    = fwtest_item.public[each.key].id
}

resource "sdktest_item" "public" {
  name  = "${var.name}-rt-public"
  value = "igw"
  tags  = { for z, s in fwtest_item.public : z => s.id }
}

resource "sdktest_item" "private" {
  for_each = local.private_cidrs
  name     = "${var.name}-rt-private-${each.key}"
  value    = var.single_nat_gateway ? fwtest_item.nat[var.zones[0]].id : fwtest_item.nat[each.key].id
}

output "public_subnet_cidrs" {
  value = [for z in var.zones : local.public_cidrs[z]]
}

output "private_subnet_cidrs" {
  value = values(local.private_cidrs)
}

output "public_subnet_ids" {
  value = [for z in var.zones : fwtest_item.public[z].id]
}

output "nat_count" {
  value = length(fwtest_item.nat)
}
