# Impure functions are unknown at plan, and so is everything built from
# them, through every operator and function.

locals {
  id = uuid()
}

resource "terraform_data" "request" {
  input = {
    id        = local.id
    prefixed  = "req-${local.id}"
    upper     = upper(local.id)
    length    = length(local.id)
    parts     = split("-", local.id)
    hashed    = sha256(local.id)
    when      = timestamp()
    later     = timeadd(timestamp(), "1h")
    known     = "still known"
    same_type = local.id == "x"
  }
}

output "id_length" {
  value = length(uuid())
}

output "parts" {
  value = {
    known   = "yes"
    unknown = uuid()
  }
}
