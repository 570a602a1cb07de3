env_then_tfvars  = "terraform.tfvars"
tfvars_then_json = "terraform.tfvars"
map_from_tfvars = {
  a = "1"
  b = "2"
}
