# What moved and removed blocks may name, as OpenTofu reads them.
resource "terraform_data" "a" {
  count = 2
  input = "x"
}

moved {
  from = module.gone
  to   = terraform_data.a[0]
}

moved {
  from = terraform_data.b
  to   = terraform_data.b
}

removed {
  from = terraform_data.c[0]
}

removed {
  from = module.m["x"].terraform_data.d
}

removed {
  from = data.terraform_data.e
}

removed {
  from = terraform_data.f.input
}
