from_file = "maybe"
