output "x" { value = terraform_data.inner.id }
