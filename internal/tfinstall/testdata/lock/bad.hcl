// Each error is expected on the line that says so.
terraform { # ERROR: unexpected `terraform`: a lock file holds only provider blocks
}

provider "hashicorp/null" { # ERROR: the address "hashicorp/null" must name its host
  version = "3.3.1"
}

provider "registry.opentofu.org/kyku/a" {
  version = "not-a-version" # ERROR: version: malformed version: not-a-version
  constraints = "~>> 1" # ERROR: constraints: version constraint "~>> 1": malformed constraint: ~>> 1
  hashes = [
    "md5:abc", # ERROR: hashes: "md5:abc" is not an h1: or zh: hash
  ]
  colour = "blue" # ERROR: unsupported attribute "colour" in a provider block (version, constraints, hashes)
}

provider "registry.opentofu.org/kyku/b" { # ERROR: provider registry.opentofu.org/kyku/b: version missing
  hashes = []
}

provider "registry.opentofu.org/kyku/c" {
  version = "1.0.0"
}
provider "registry.opentofu.org/kyku/c" { # ERROR: provider registry.opentofu.org/kyku/c is locked twice
  version = "1.0.0"
  version = "1.0.1" # ERROR: version is set twice
}
