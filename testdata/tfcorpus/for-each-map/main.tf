# for_each over a map variable and over a set of strings; each.key and
# each.value; references to instances by key.

variable "users" {
  type = map(object({
    role  = string
    email = string
  }))
  default = {
    alice = { role = "admin", email = "alice@example.com" }
    bob   = { role = "dev", email = "bob@example.com" }
    carol = { role = "dev", email = "carol@example.com" }
  }
}

variable "regions" {
  type    = set(string)
  default = ["eu-west", "us-east", "eu-west"]
}

resource "terraform_data" "user" {
  for_each = var.users
  input = {
    name  = each.key
    role  = each.value.role
    email = each.value.email
  }
}

resource "terraform_data" "region" {
  for_each = var.regions
  input    = "bucket-${each.key}-${each.value}"
}

resource "terraform_data" "admins" {
  for_each = { for name, u in var.users : name => u if u.role == "admin" }
  input    = terraform_data.user[each.key].input.email
}

output "user_roles" {
  value = { for k, u in terraform_data.user : k => u.input.role }
}

output "region_keys" {
  value = keys(terraform_data.region)
}
