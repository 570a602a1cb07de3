# The built-in terraform_data resource: input of every type, null input,
# triggers_replace, and output (known only after apply) used elsewhere.

resource "terraform_data" "empty" {}

resource "terraform_data" "string" {
  input = "hello"
}

resource "terraform_data" "number" {
  input = 3.25
}

resource "terraform_data" "object" {
  input = {
    list = [1, 2, 3]
    map  = { a = "b" }
    bool = true
    null = null
  }
}

resource "terraform_data" "triggered" {
  input            = "rebuild"
  triggers_replace = [terraform_data.string.id, "v2"]
}

resource "terraform_data" "uses_output" {
  input = terraform_data.object.output
}

output "string_output" {
  value = terraform_data.string.output
}

output "string_input" {
  value = terraform_data.string.input
}
