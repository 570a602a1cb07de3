variable "name" {
  type = string
}

variable "versioned" {
  type = bool
}

resource "terraform_data" "bucket" {
  input = {
    name       = var.name
    versioning = var.versioned ? "Enabled" : "Suspended"
  }
}

resource "terraform_data" "version_rule" {
  count = var.versioned ? 1 : 0
  input = "keep 30 versions of ${var.name}"
}

output "name" {
  value = terraform_data.bucket.input.name
}

output "arn" {
  value = "arn:test:bucket:::${var.name}"
}

output "policy" {
  value = jsonencode({
    Statement = [{ Effect = "Allow", Resource = "arn:test:bucket:::${var.name}/*" }]
  })
}
