from_arg = { k = "from-var-file" }
