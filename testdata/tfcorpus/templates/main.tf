# String templates: interpolation, %{if}/%{else}, %{for}, strip markers,
# heredocs (plain and indented), escapes.

variable "users" {
  type    = list(string)
  default = ["ann", "ben"]
}

variable "debug" {
  type    = bool
  default = true
}

locals {
  greeting = "Hello, %{if length(var.users) > 1}everyone%{else}${var.users[0]}%{endif}!"
  list     = "%{for i, u in var.users}${i}=${u}%{if i < length(var.users) - 1},%{endif}%{endfor}"
  stripped = <<-EOT
    %{~for u in var.users~}
    [${u}]
    %{~endfor~}
  EOT
  heredoc  = <<EOT
line one
  indented ${upper(var.users[0])}
EOT
  indented = <<-EOT
    server {
      listen 80;
    %{if var.debug~}
      debug on;
    %{endif~}
    }
  EOT
  escaped  = "literal $${not_interpolated} and %%{not_a_directive}"
  nested   = "outer ${"inner ${var.users[1]}"} ${var.debug ? "on" : "off"}"
}

resource "terraform_data" "config" {
  input = local.indented
}

output "greeting" {
  value = local.greeting
}

output "list" {
  value = local.list
}

output "stripped" {
  value = local.stripped
}

output "heredoc" {
  value = local.heredoc
}

output "indented" {
  value = local.indented
}

output "escaped" {
  value = local.escaped
}

output "nested" {
  value = local.nested
}
