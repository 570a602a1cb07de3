# Conditions that read nothing check nothing; a variable's validation must
# read the variable; a check whose every assert is refused has none;
# replace_triggered_by and depends_on name what is declared.
variable "size" {
  type    = number
  default = 1
  validation {
    condition     = var.other > 0
    error_message = "reads another variable only"
  }
}

variable "other" {
  type    = number
  default = 1
}

resource "terraform_data" "a" {
  input = var.size
  lifecycle {
    precondition {
      condition     = 1 == 1
      error_message = "constant"
    }
    replace_triggered_by = [terraform_data.missing]
  }
  depends_on = [var.nope, local.l.x, terraform_data.a.id]
}

check "c" {
  assert {
    condition     = true
    error_message = "constant"
  }
}

locals {
  l = {}
}

output "o" {
  value = var.size
  precondition {
    condition     = "x" == "x"
    error_message = "constant"
  }
}
