# A function its provider does not define: OpenTofu says so where it is
# called.

terraform {
  required_providers {
    fwtest = {
      source  = "kyku/fwtest"
      version = "0.1.0"
    }
  }
}
output "nope" {
  value = provider::fwtest::nope("a")
}
