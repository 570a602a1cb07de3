# A move to where it is: no move at all.
resource "terraform_data" "b" {
  input = "x"
}

moved {
  from = terraform_data.b
  to   = terraform_data.b
}
