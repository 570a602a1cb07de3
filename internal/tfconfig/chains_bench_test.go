package tfconfig_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/kyku/action/internal/tfconfig"
	"github.com/kyku/action/internal/tfconfig/benchchains"
)

// BenchmarkLoadChains: .ci/bench-reads' configuration of 50,000
// resources (5 MB of HCL in one main.tf) read and expanded, as every
// `kyku plan` of it does before planning.
func BenchmarkLoadChains(b *testing.B) {
	for _, n := range []int{500, 50000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			dir := b.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(benchchains.TF(n, filepath.Join(dir, "cloud"), "v2")), 0o600); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				m, err := tfconfig.Load(dir, nil, tfconfig.Inputs{})
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
