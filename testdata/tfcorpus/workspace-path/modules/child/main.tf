output "paths" {
  value = {
    module    = path.module
    root      = path.root
    workspace = terraform.workspace
    file      = fileexists("${path.module}/main.tf")
  }
}
