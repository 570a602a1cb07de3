# The functions of hashicorp/time and hashicorp/local: parsing RFC 3339
# timestamps, Unix timestamps and durations, and whether a directory
# exists; a timestamp known only after apply leaves the result unknown.

terraform {
  required_providers {
    time = {
      source  = "hashicorp/time"
      version = "0.14.0"
    }
    local = {
      source  = "hashicorp/local"
      version = "2.9.0"
    }
  }
}

locals {
  release = provider::time::rfc3339_parse("2024-02-29T23:59:58+02:00")
}

resource "time_static" "now" {}

output "release" {
  value = local.release
}

output "weekday" {
  value = "${local.release.weekday_name}, week ${local.release.iso_week}"
}

output "epoch" {
  value = provider::time::unix_timestamp_parse(1700000000).rfc3339
}

output "window" {
  value = provider::time::duration_parse("1h30m15.5s")
}

output "static_year" {
  value = provider::time::rfc3339_parse(time_static.now.rfc3339).year
}

output "module_dir" {
  value = provider::local::direxists(path.module)
}

output "missing_dir" {
  value = provider::local::direxists("${path.module}/nowhere")
}
