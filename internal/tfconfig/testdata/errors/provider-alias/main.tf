# A resource naming a provider configuration the root module does not
# declare.
provider "null" {
  alias = "a"
}

resource "null_resource" "fine" {
  provider = null.a
}

resource "null_resource" "x" {
  provider = null.b
}
