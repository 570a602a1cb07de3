package tfconfig_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kyku/action/internal/tfconfig"
)

// chainsTF is .ci/bench-reads' configuration: n fwtest_latent objects in
// chains of 10, one resource block each (every object reads the id of the
// one before it), 3 of them taking local.changed as value.
func chainsTF(n int, cloud string) string {
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
  changed = "v2"
}
`, cloud)
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

// BenchmarkLoadChains: .ci/bench-reads' configuration of 50,000
// resources (5 MB of HCL in one main.tf) read and expanded, as every
// `kyku plan` of it does before planning.
func BenchmarkLoadChains(b *testing.B) {
	for _, n := range []int{500, 50000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			dir := b.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(chainsTF(n, filepath.Join(dir, "cloud"))), 0o600); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				m, err := tfconfig.Load(dir, nil)
				if err != nil {
					b.Fatal(err)
				}
				cfg, err := tfconfig.Expand(m, tfconfig.Inputs{})
				if err != nil {
					b.Fatal(err)
				}
				if len(cfg.Resources) != n {
					b.Fatalf("%d resources, want %d", len(cfg.Resources), n)
				}
			}
		})
	}
}
