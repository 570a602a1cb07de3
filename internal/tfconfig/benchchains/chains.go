// Package benchchains writes .ci/bench-reads' Terraform configuration
// for benchmarks: n fwtest_latent objects in chains of 10, one resource
// block each, every object reading the id of the one before it in its
// chain, 3 of them (in the middle of 3 chains) taking local.changed as
// value. It holds no state; its functions may be called from any
// goroutine.
package benchchains

import (
	"fmt"
	"strings"
)

// TF is the configuration's main.tf: the provider's objects kept in
// directory cloud, local.changed set to changed.
func TF(n int, cloud, changed string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `terraform {
  required_providers {
    fwtest = { source = "kyku/fwtest", version = "0.1.0" }
  }
}

provider "fwtest" {
  dir = %q
}

locals {
  changed = %q
}
`, cloud, changed)
	picked := map[int]bool{n/40*10 + 5: true, n/20*10 + 5: true, 3*n/40*10 + 5: true}
	for i := range n {
		value, after := `"v1"`, ""
		if picked[i] {
			value = "local.changed"
		}
		if i%10 != 0 {
			after = fmt.Sprintf("\n  after = fwtest_latent.r%d.id", i-1)
		}
		fmt.Fprintf(&b, "\nresource \"fwtest_latent\" \"r%d\" {\n  name  = \"r%d\"\n  value = %s%s\n}\n", i, i, value, after)
	}
	return b.String()
}
