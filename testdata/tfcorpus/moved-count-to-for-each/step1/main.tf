variable "names" { default = ["a", "b", "c"] }
resource "terraform_data" "n" {
  count = length(var.names)
  input = var.names[count.index]
}
resource "terraform_data" "watch" {
  input = "w"
  lifecycle { replace_triggered_by = [terraform_data.n[1].input] }
}
