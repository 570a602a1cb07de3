# Instance keys where a resource has none, none where it has count or
# for_each, and the count attribute OpenTofu no longer has.

resource "terraform_data" "counted" {
  count = 2
  input = "x"
}

resource "terraform_data" "eached" {
  for_each = toset(["a", "b"])
  input    = each.key
}

resource "terraform_data" "one" {
  input = "y"
}

resource "terraform_data" "reads" {
  input = [
    terraform_data.counted.output,
    terraform_data.eached.output,
    terraform_data.one[0].output,
    terraform_data.one["a"].output,
    terraform_data.one.count,
  ]
}

output "whole" {
  value = [terraform_data.counted[0].output, terraform_data.eached["a"].output, length(terraform_data.counted)]
}
