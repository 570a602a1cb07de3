resource "terraform_data" "server" {
  input = {
    size   = var.size
    region = local.region
    by     = "server_override.tf"
  }
}
