# Check results of every kind: a check block (passing and failing), a
# resource's postcondition, an output's precondition, a variable's validation.
variable "n" {
  type    = number
  default = 3
  validation {
    condition     = var.n > 0
    error_message = "n must be positive."
  }
}

resource "random_integer" "i" {
  count = 2
  min   = 1
  max   = 10
  lifecycle {
    postcondition {
      condition     = self.result >= 1
      error_message = "too small"
    }
  }
}

check "passes" {
  assert {
    condition     = var.n == 3
    error_message = "n is not 3"
  }
}

check "fails" {
  assert {
    condition     = var.n == 4
    error_message = "n is not 4"
  }
}

output "first" {
  value = random_integer.i[0].result
  precondition {
    condition     = random_integer.i[0].result > 0
    error_message = "bad result"
  }
}
