# A provider configuration with for_each: each instance of a resource names
# its own provider instance in state.
provider "random" {
  alias    = "by"
  for_each = toset(["a", "b"])
}

resource "random_pet" "p" {
  for_each = toset(["a", "b"])
  provider = random.by[each.key]
}
