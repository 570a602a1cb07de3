# From a state: a resource moved from count to for_each with moved blocks
# (one key new, one gone), and a replace_triggered_by naming an attribute
# of the instance this plan creates, which replaces its resource.

variable "names" { default = ["a", "bb", "c"] }
resource "terraform_data" "n" {
  for_each = toset(var.names)
  input    = each.key
}
moved {
  from = terraform_data.n[0]
  to   = terraform_data.n["a"]
}
moved {
  from = terraform_data.n[2]
  to   = terraform_data.n["c"]
}
resource "terraform_data" "watch" {
  input = "w"
  lifecycle { replace_triggered_by = [terraform_data.n["bb"].input] }
}
output "keys" { value = sort(keys(terraform_data.n)) }
