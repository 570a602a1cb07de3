resource "terraform_data" "d" {
  input = "x"
}
data "terraform_remote_state" "net" {
  backend = "s3"
}
