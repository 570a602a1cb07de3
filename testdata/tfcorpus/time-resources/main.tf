# hashicorp/time: resources from a fixed base time (known at plan where
# the provider computes them) and from now (known only after apply).

terraform {
  required_providers {
    time = {
      source  = "hashicorp/time"
      version = "0.14.0"
    }
  }
}

resource "time_static" "fixed" {
  rfc3339 = "2024-05-01T12:00:00Z"
}

resource "time_static" "now" {}

resource "time_offset" "week" {
  base_rfc3339 = "2024-05-01T12:00:00Z"
  offset_days  = 7
}

resource "time_rotating" "monthly" {
  rfc3339         = "2024-05-01T12:00:00Z"
  rotation_months = 1
}

resource "time_sleep" "settle" {
  create_duration = "1s"
  triggers = {
    after = time_static.fixed.rfc3339
  }
}

output "fixed" {
  value = {
    year  = time_static.fixed.year
    unix  = time_static.fixed.unix
    week  = time_offset.week.rfc3339
    month = time_rotating.monthly.rotation_rfc3339
  }
}

output "now" {
  value = time_static.now.rfc3339
}
