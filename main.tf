module "m" {
  source = "./m"
}
resource "terraform_data" "root" {
  input = "r"
}
output "root" {
  value = terraform_data.root.output
  precondition {
    condition     = terraform_data.root.output == "s"
    error_message = "root's output must be s."
  }
}
