# hashicorp/local: files written from templates and JSON, a sensitive
# file, and content hashes known at plan.

terraform {
  required_providers {
    local = {
      source  = "hashicorp/local"
      version = "2.9.0"
    }
  }
}

variable "hosts" {
  type    = list(string)
  default = ["10.0.0.1", "10.0.0.2"]
}

resource "local_file" "inventory" {
  filename        = "${path.module}/out/inventory.ini"
  file_permission = "0644"
  content         = <<-EOT
    [web]
    %{for h in var.hosts~}
    ${h}
    %{endfor~}
  EOT
}

resource "local_file" "config" {
  filename = "${path.module}/out/config.json"
  content  = jsonencode({ hosts = var.hosts, port = 443 })
}

resource "local_sensitive_file" "key" {
  filename = "${path.module}/out/key.txt"
  content  = "not a real key"
}

resource "local_file" "binary" {
  filename       = "${path.module}/out/blob.bin"
  content_base64 = base64encode("binary\u0000data")
}

output "inventory_sha" {
  value = local_file.inventory.content_sha256
}
