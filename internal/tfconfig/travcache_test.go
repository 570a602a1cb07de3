package tfconfig_test

import (
	"testing"

	"github.com/kyku/action/internal/tfconfig"
)

// BenchmarkExpandBenchShape: .ci/bench-hcl's configuration (50 instances
// of a module of 100 counted resources) loaded and expanded, as each
// plan and apply does first. The traversals of each argument's
// expression are found once, not once per instance (travCache).
func BenchmarkExpandBenchShape(b *testing.B) {
	dir := b.TempDir()
	writeFiles(b, dir, planShapeFiles(50, 100))
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
		if len(cfg.Resources) != 5000 {
			b.Fatalf("%d resources", len(cfg.Resources))
		}
	}
}
