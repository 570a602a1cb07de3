language {
  edition = tofu2024
  compatible_with {
    opentofu  = ">= 1.12.0, < 2.0.0"
    terraform = ">= 1.5.0"
  }
}
