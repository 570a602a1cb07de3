# count from a value known only after apply: OpenTofu refuses the plan.

terraform {
  required_providers {
    random = {
      source  = "hashicorp/random"
      version = "3.9.0"
    }
  }
}

resource "random_integer" "n" {
  min = 1
  max = 3
}

resource "terraform_data" "counted" {
  count = random_integer.n.result
  input = count.index
}
