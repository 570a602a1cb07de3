locals {
  names   = ["web", "api", "db"]
  enabled = true
  cidr    = "10.0.0.0/16"
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [for n in local.names : {
      Effect   = "Allow"
      Resource = "arn:aws:s3:::${n}/*"
    }]
  })
  script = <<-EOT
    #!/bin/sh
    %{for n in local.names~}
    echo ${n}
    %{endfor~}
    %{if local.enabled}enabled%{else}disabled%{endif}
  EOT
}
resource "null_resource" "e" {
  triggers = {
    cond      = local.enabled ? "yes" : "no"
    upper     = [for n in local.names : upper(n) if n != "db"]
    by_name   = jsonencode({ for i, n in local.names : n => i })
    splat     = jsonencode([for o in [{ a = 1 }, { a = 2 }] : o.a])
    full      = jsonencode([{ a = 1 }, { a = 2 }][*].a)
    subnet    = cidrsubnet(local.cidr, 8, 2)
    subnets   = join(",", [for i in range(3) : cidrsubnet(local.cidr, 4, i)])
    formatted = format("%s-%03d", "web", 7)
    element   = element(local.names, 4)
    replaced  = replace("a-b-c", "-", "_")
    policy    = local.policy
    script    = local.script
    module    = path.module
    cwd       = path.cwd
    workspace = terraform.workspace
    tpl       = templatefile("${path.module}/user-data.tftpl", { names = local.names, port = 8080 })
    file      = file("${path.module}/user-data.tftpl")
    core      = core::upper("core")
    try       = try(local.names[10], "fallback")
    merged    = jsonencode(merge({ a = 1 }, { b = 2 }))
    lookup    = lookup({ a = "x" }, "b", "default")
    sha       = sha256("kyku")
    tostring  = tostring(5)
  }
}
resource "null_resource" "reads" {
  triggers = {
    id       = null_resource.e.id
    interp   = "arn ${null_resource.e.arn} in ${terraform.workspace}"
    splat    = jsonencode(null_resource.e[*].id)
    zones    = join(",", null_resource.e.zones)
    cond     = local.enabled ? null_resource.e.name : "off"
    tag      = null_resource.e.tags["env"]
  }
}
