from_file = 7
str       = "from-tfvars"
