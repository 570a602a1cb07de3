# templatefile() with for/if directives and functions inside the
# template, templatestring(), and a template's result in a resource.

locals {
  app_conf = templatefile("${path.module}/templates/app.conf.tftpl", {
    name     = "api"
    port     = 8080
    settings = { log_level = "info", workers = "4" }
    backends = ["10.0.0.1", "10.0.0.2"]
  })
  empty_conf = templatefile("${path.module}/templates/app.conf.tftpl", {
    name     = "empty"
    port     = 80
    settings = {}
    backends = []
  })
  hosts      = jsondecode(templatefile("templates/hosts.json.tftpl", { hosts = ["a", "b"], port = 22 }))
  inline_tpl = "Hi $${name}, you are $${age}."
  from_str   = templatestring(local.inline_tpl, { name = "Ann", age = 31 })
}

resource "terraform_data" "app" {
  input = {
    conf   = local.app_conf
    sha256 = sha256(local.app_conf)
  }
}

output "app_conf" {
  value = local.app_conf
}

output "empty_conf" {
  value = local.empty_conf
}

output "hosts" {
  value = local.hosts
}

output "from_str" {
  value = local.from_str
}
