# A sensitive value as for_each: OpenTofu refuses it, since each key would
# show in the plan.

variable "users" {
  type      = set(string)
  sensitive = true
  default   = ["ann", "ben"]
}

resource "terraform_data" "user" {
  for_each = var.users
  input    = each.key
}
