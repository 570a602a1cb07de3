from_file = 7
str       = "from-tfvars"
shared_by_other_roots = "x"
