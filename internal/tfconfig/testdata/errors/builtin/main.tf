resource "terraform_data" "d" {
  input = "x"
}
data "terraform_data" "net" {
}
