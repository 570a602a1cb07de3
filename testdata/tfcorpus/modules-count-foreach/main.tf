# count and for_each on module calls; module instances' outputs by index
# and by key; a module with count = 0.

variable "buckets" {
  type = map(object({
    versioned = bool
  }))
  default = {
    logs   = { versioned = false }
    assets = { versioned = true }
  }
}

module "bucket" {
  source   = "./modules/bucket"
  for_each = var.buckets

  name      = each.key
  versioned = each.value.versioned
}

module "replica" {
  source = "./modules/bucket"
  count  = 2

  name      = "replica-${count.index}"
  versioned = count.index == 0
}

module "disabled" {
  source = "./modules/bucket"
  count  = 0

  name      = "never"
  versioned = false
}

output "bucket_names" {
  value = { for k, m in module.bucket : k => m.name }
}

output "replica_arns" {
  value = module.replica[*].arn
}

output "assets_policy" {
  value = module.bucket["assets"].policy
}
