variable "zones" {
  type = list(string)
}

resource "terraform_data" "zone" {
  for_each = toset(var.zones)
  input    = "zone-${each.key}"
}

output "ids" {
  value = { for z, d in terraform_data.zone : z => d.id }
}
