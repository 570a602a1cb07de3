# lifecycle { enabled } refused at plan: a value known only after apply.

resource "terraform_data" "later" {}

resource "terraform_data" "unknown" {
  lifecycle {
    enabled = terraform_data.later.id != ""
  }
}
