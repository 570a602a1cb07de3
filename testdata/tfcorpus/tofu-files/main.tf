# OpenTofu reads .tofu files, and a .tofu file hides the .tf file of the
# same name: only shared.tofu's values below are used.

resource "terraform_data" "main" {
  input = local.shared
}

output "shared" {
  value = local.shared
}
