# for expressions: lists and maps, filters, index and key/value forms,
# grouping with ..., nested, over sets and objects.

variable "people" {
  type = list(object({
    name = string
    team = string
    age  = number
  }))
  default = [
    { name = "ann", team = "blue", age = 31 },
    { name = "ben", team = "red", age = 25 },
    { name = "cat", team = "blue", age = 42 },
    { name = "dan", team = "green", age = 19 },
  ]
}

locals {
  names         = [for p in var.people : p.name]
  upper_names   = [for p in var.people : upper(p.name) if p.age > 20]
  by_name       = { for p in var.people : p.name => p.age }
  by_team       = { for p in var.people : p.team => p.name... }
  indexed       = [for i, p in var.people : "${i}:${p.name}"]
  from_map      = [for k, v in local.by_name : "${k}=${v}" if v < 40]
  nested        = [for t, ns in local.by_team : [for n in ns : "${t}/${n}"]]
  from_set      = [for s in toset(["b", "a", "c"]) : s]
  object_keys   = [for k, v in { z = 1, a = 2 } : k]
  map_of_maps   = { for p in var.people : p.name => { team = p.team, adult = p.age >= 21 } }
  tuple_to_list = [for x in ["1", 2, true] : tostring(x)]
}

resource "terraform_data" "teams" {
  for_each = local.by_team
  input    = sort(each.value)
}

output "names" {
  value = local.names
}

output "upper_names" {
  value = local.upper_names
}

output "by_name" {
  value = local.by_name
}

output "by_team" {
  value = local.by_team
}

output "indexed" {
  value = local.indexed
}

output "from_map" {
  value = local.from_map
}

output "nested" {
  value = local.nested
}

output "from_set" {
  value = local.from_set
}

output "object_keys" {
  value = local.object_keys
}

output "map_of_maps" {
  value = local.map_of_maps
}

output "tuple_to_list" {
  value = local.tuple_to_list
}
