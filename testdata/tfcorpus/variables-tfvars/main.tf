# Where variable values come from, and which one wins: TF_VAR_ (corpus.env)
# < terraform.tfvars < terraform.tfvars.json < *.auto.tfvars(.json) in
# lexical order < -var-file and -var on the command line, in order
# (corpus.args).

variable "from_env" {
  type = string
}

variable "env_then_tfvars" {
  type = string
}

variable "tfvars_then_json" {
  type = string
}

variable "json_then_auto" {
  type = string
}

variable "auto_a_then_b" {
  type = string
}

variable "auto_then_varfile" {
  type = string
}

variable "varfile_then_var" {
  type = string
}

variable "list_from_env" {
  type = list(number)
}

variable "map_from_tfvars" {
  type = map(string)
}

resource "terraform_data" "values" {
  input = {
    from_env          = var.from_env
    env_then_tfvars   = var.env_then_tfvars
    tfvars_then_json  = var.tfvars_then_json
    json_then_auto    = var.json_then_auto
    auto_a_then_b     = var.auto_a_then_b
    auto_then_varfile = var.auto_then_varfile
    varfile_then_var  = var.varfile_then_var
    list_from_env     = var.list_from_env
    map_from_tfvars   = var.map_from_tfvars
  }
}

output "values" {
  value = terraform_data.values.input
}
