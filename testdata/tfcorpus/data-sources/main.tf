# Data sources read at plan (a file, items of the test cloud over both
# protocols) and read at apply (configuration unknown at plan, or a
# dependency with changes pending), and resources using what they read.

terraform {
  required_providers {
    fwtest = {
      source  = "kyku/fwtest"
      version = "0.1.0"
    }
    sdktest = {
      source  = "kyku/sdktest"
      version = "0.1.0"
    }
    local = {
      source  = "hashicorp/local"
      version = "2.9.0"
    }
    random = {
      source  = "hashicorp/random"
      version = "3.9.0"
    }
  }
}

provider "fwtest" {
  dir = "${path.module}/cloud"
}

provider "sdktest" {
  dir = "${path.module}/cloud"
}

data "local_file" "nginx" {
  filename = "${path.module}/files/nginx.conf"
}

data "fwtest_item" "config" {
  name = "config"
}

data "sdktest_item" "db" {
  name = "db"
}

data "sdktest_list" "all" {}

resource "fwtest_item" "uses_reads" {
  name  = "uses-reads"
  value = "${data.fwtest_item.config.id}:${data.sdktest_item.db.value}"
  tags = {
    nginx_sha = substr(data.local_file.nginx.content_sha256, 0, 12)
  }
}

resource "random_pet" "name" {}

# Its name is unknown until apply, so it is read during apply.
data "fwtest_item" "later" {
  name = random_pet.name.id
}

# It depends on a resource with changes pending.
data "fwtest_item" "after_create" {
  name       = "config"
  depends_on = [fwtest_item.uses_reads]
}

output "read_at_plan" {
  value = {
    nginx  = data.local_file.nginx.content
    config = data.fwtest_item.config.value
    db     = data.sdktest_item.db.value
    all    = data.sdktest_list.all
  }
}

output "read_at_apply" {
  value = [data.fwtest_item.later.value, data.fwtest_item.after_create.value]
}
