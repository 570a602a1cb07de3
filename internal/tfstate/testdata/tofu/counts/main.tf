# count, for_each over a set and a map, and an instance key that needs quoting.
resource "random_id" "c" {
  count       = 3
  byte_length = 4
}

resource "random_string" "s" {
  for_each = toset(["alpha", "beta", "with space", "quote\"d"])
  length   = 6
  special  = false
}

resource "null_resource" "m" {
  for_each = { a = 1, b = 2 }
  triggers = {
    v = tostring(each.value)
    c = random_id.c[each.value].hex
  }
}

resource "null_resource" "zero" {
  count = 0
}

output "ids" {
  value = random_id.c[*].hex
}
