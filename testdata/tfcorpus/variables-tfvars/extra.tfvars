auto_then_varfile = "extra.tfvars"
varfile_then_var  = "extra.tfvars"
