# What replace_triggered_by and depends_on may name: declared resources,
# whole objects (a local or variable waits for what it reads; quoted, the
# form of Terraform 0.11, is read as the reference).
resource "terraform_data" "a" {
  input = "x"
  lifecycle {
    replace_triggered_by = [terraform_data.missing]
  }
}

resource "terraform_data" "b" {
  depends_on = [var.nope, local.l.x, terraform_data.a.id, module.m]
}

resource "terraform_data" "c" {
  depends_on = ["terraform_data.a", local.l, "terraform_data.gone"]
}

locals {
  l = terraform_data.a.output
}
