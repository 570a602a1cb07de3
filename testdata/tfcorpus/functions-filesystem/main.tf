# Filesystem functions, relative to the module directory. abspath and
# path.cwd give absolute paths: the recording replaces the working
# directory with a placeholder.

locals {
  dir = "${path.module}/files"
}

output "file" {
  value = file("${local.dir}/hello.txt")
}

output "fileexists" {
  value = [fileexists("${local.dir}/hello.txt"), fileexists("${local.dir}/missing.txt")]
}

output "fileset" {
  value = fileset(local.dir, "*.conf")
}

output "fileset_nested" {
  value = fileset(path.module, "files/{hello,data}.*")
}

output "filebase64" {
  value = filebase64("${local.dir}/hello.txt")
}

output "file_hashes" {
  value = {
    md5          = filemd5("${local.dir}/hello.txt")
    sha1         = filesha1("${local.dir}/hello.txt")
    sha256       = filesha256("${local.dir}/hello.txt")
    sha512       = filesha512("${local.dir}/hello.txt")
    base64sha256 = filebase64sha256("${local.dir}/hello.txt")
    base64sha512 = filebase64sha512("${local.dir}/hello.txt")
  }
}

output "yaml_file" {
  value = yamldecode(file("${local.dir}/data.yaml"))
}

output "paths" {
  value = {
    basename = basename("/a/b/c.txt")
    dirname  = dirname("/a/b/c.txt")
    module   = path.module
    root     = path.root
    abs      = abspath(path.module)
    cwd      = path.cwd
  }
}

resource "terraform_data" "contents" {
  for_each = fileset(local.dir, "*.conf")
  input    = trimspace(file("${local.dir}/${each.value}"))
}
