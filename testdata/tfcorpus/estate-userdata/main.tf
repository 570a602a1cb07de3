# Real-world shape: instances' user data rendered from a cloud-init
# template (for and if directives, jsonencode inside), gzipped and base64
# encoded, with one instance's data holding a key known only after apply.

terraform {
  required_providers {
    tls = {
      source  = "hashicorp/tls"
      version = "4.2.1"
    }
    local = {
      source  = "hashicorp/local"
      version = "2.9.0"
    }
  }
}

variable "instances" {
  type = map(object({
    packages      = list(string)
    enable_docker = bool
  }))
  default = {
    web = { packages = ["nginx", "curl"], enable_docker = false }
    ci  = { packages = ["git", "docker.io"], enable_docker = true }
  }
}

variable "admin_key" {
  type    = string
  default = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHl0c3RrZXlmb3J0aGVjb3JwdXNvbmx5YWJjZGVmZ2hp admin@example.com"
}

resource "tls_private_key" "deploy" {
  algorithm = "ED25519"
}

locals {
  user_data = {
    for name, inst in var.instances : name => templatefile("${path.module}/templates/cloud-init.yaml.tftpl", {
      hostname      = "${name}.internal"
      users         = [{ name = "admin", groups = ["sudo", "adm"], key = var.admin_key }]
      packages      = inst.packages
      enable_docker = inst.enable_docker
      app_config    = { name = name, port = 8080, docker = inst.enable_docker }
    })
  }
}

resource "terraform_data" "instance" {
  for_each = var.instances
  input = {
    name             = each.key
    user_data        = local.user_data[each.key]
    user_data_base64 = base64gzip(local.user_data[each.key])
    user_data_sha    = sha256(local.user_data[each.key])
  }
}

resource "terraform_data" "deployer" {
  input = {
    user_data = base64encode(templatefile("${path.module}/templates/cloud-init.yaml.tftpl", {
      hostname      = "deployer.internal"
      users         = [{ name = "deploy", groups = ["deploy"], key = trimspace(tls_private_key.deploy.public_key_openssh) }]
      packages      = []
      enable_docker = false
      app_config    = {}
    }))
  }
}

resource "local_file" "rendered" {
  for_each = local.user_data
  filename = "${path.module}/rendered/${each.key}.yaml"
  content  = each.value
}

output "user_data" {
  value = local.user_data
}
