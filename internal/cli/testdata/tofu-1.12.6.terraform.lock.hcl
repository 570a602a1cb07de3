# This file is maintained automatically by "tofu init".
# Manual edits may be lost in future updates.

provider "registry.opentofu.org/hashicorp/null" {
  version     = "3.3.1"
  constraints = "~> 3.2"
  hashes = [
    "h1:6n/M+nVOpBHBriZu5aEngOoIYaxvLT1La4K+ZkgUuJg=",
  ]
}

provider "registry.opentofu.org/hashicorp/random" {
  version     = "3.9.0"
  constraints = ">= 3.0.0"
  hashes = [
    "h1:1mEYxvvBgutSk24N1uCH3jVQn2hMgcgl87g+pJcAjMc=",
  ]
}
