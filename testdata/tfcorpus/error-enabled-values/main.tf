# lifecycle { enabled } refused at plan: a sensitive value, null, and
# not a bool (one known only after apply: error-enabled-unknown).

variable "secret_switch" {
  type      = bool
  default   = true
  sensitive = true
}

resource "terraform_data" "sensitive" {
  lifecycle {
    enabled = var.secret_switch
  }
}

resource "terraform_data" "null" {
  lifecycle {
    enabled = null
  }
}

resource "terraform_data" "text" {
  lifecycle {
    enabled = "yes"
  }
}
