# A precondition that fails with values known at plan, on a resource and
# on an output: OpenTofu refuses the plan and shows each error message.

variable "size" {
  type    = number
  default = 2
}

resource "terraform_data" "disk" {
  input = var.size

  lifecycle {
    precondition {
      condition     = var.size >= 10
      error_message = "Disks are at least 10 GB, not ${var.size}."
    }
  }
}

output "size" {
  value = var.size

  precondition {
    condition     = var.size % 2 == 1
    error_message = "The size must be odd."
  }
}
