# Calls of a provider's functions the function or the language refuses,
# each said at its argument: a value the function refuses (with the
# argument it names), one not of the parameter's type, null where the
# parameter takes none, and too few or too many arguments.

terraform {
  required_providers {
    fwtest = {
      source  = "kyku/fwtest"
      version = "0.1.0"
    }
  }
}

output "empty_separator" {
  value = provider::fwtest::join_upper("", "a")
}

output "not_a_prefix" {
  value = provider::fwtest::parse_cidr("10.0.0.0/33")
}

output "not_numbers" {
  value = provider::fwtest::sum(["one", 2])
}

output "null_prefix" {
  value = provider::fwtest::parse_cidr(null)
}

output "too_few" {
  value = provider::fwtest::or_default("a")
}

output "too_many" {
  value = provider::fwtest::parse_cidr("10.0.0.0/8", "again")
}
