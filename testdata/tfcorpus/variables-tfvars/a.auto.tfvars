json_then_auto    = "a.auto.tfvars"
auto_a_then_b     = "a.auto.tfvars"
auto_then_varfile = "a.auto.tfvars"
