# lifecycle { enabled }: a resource, a data source and a module call with
# one instance or none; what reads one that is off reads null; one that
# had count = 1 keeps its object (terraform_data.was_counted[0] moves to
# terraform_data.was_counted); one turned off is destroyed.

variable "with_extras" {
  type    = bool
  default = false
}

resource "terraform_data" "was_counted" {
  input = "kept"
  lifecycle {
    enabled = true
  }
}

resource "terraform_data" "going" {
  input = "gone next"
  lifecycle {
    enabled = var.with_extras
  }
}

resource "terraform_data" "extra" {
  input = "extra"
  lifecycle {
    enabled = var.with_extras
  }
}

resource "terraform_data" "basic" {
  input = "basic"
  lifecycle {
    enabled = !var.with_extras
  }
}

data "terraform_remote_state" "peer" {
  backend = "local"
  config  = { path = "${path.module}/peer.tfstate" }
  lifecycle {
    enabled = var.with_extras
  }
}

module "extras" {
  source = "./m"
  name   = "extras"
  lifecycle {
    enabled = var.with_extras
  }
}

module "always" {
  source = "./m"
  name   = "always"
  lifecycle {
    enabled = length(terraform_data.basic.input) > 0
  }
}

output "extra" {
  value = terraform_data.extra != null ? terraform_data.extra.input : "off"
}

output "basic" {
  value = try(terraform_data.basic.input, "off")
}

output "modules" {
  value = [module.extras == null ? "no extras" : module.extras.name, module.always.name]
}

output "peer" {
  value = data.terraform_remote_state.peer == null
}
