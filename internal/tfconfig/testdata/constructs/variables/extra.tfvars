from_arg = { k = "from-var-file" }
not_declared_either = 1
