# import blocks with for_each over a list and a tuple: each.key is the
# element's index, a number, so it addresses a counted resource's
# instances; over a set of strings each.key is the element.

resource "terraform_data" "counted" {
  count = 2
  input = "counted-${count.index}"
}

import {
  for_each = ["id-a", "id-b"]
  to       = terraform_data.counted[each.key]
  id       = each.value
}

resource "terraform_data" "named" {
  for_each = toset(["x", "y"])
  input    = each.key
}

import {
  for_each = toset(["x", "y"])
  to       = terraform_data.named[each.key]
  id       = "named-${each.value}"
}

resource "terraform_data" "tupled" {
  count = 1
}

import {
  for_each = [{ id = "t-0" }]
  to       = terraform_data.tupled[each.key]
  id       = each.value.id
}
