package tfprovider_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/provider/sim"
	"github.com/kyku/action/internal/provider/tfprovider"
	"github.com/kyku/action/internal/statemgr/local"
	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// chains is n fwtest_latent objects in chains of 10 (each reads the id
// of the one before it), three of them (in three chains) with value v.
func chains(n int, v string) string {
	var b strings.Builder
	b.WriteString("providers:\n  fwtest: { source: kyku/fwtest, config: { dir: CLOUD } }\nresources:\n")
	changed := map[int]bool{n/4 + 5: true, n/2 + 5: true, 3*n/4 + 5: true}
	for i := range n {
		val := "v1"
		if changed[i] {
			val = v
		}
		if i%10 == 0 {
			fmt.Fprintf(&b, "  r%d: { type: fwtest_latent, properties: { name: r%d, value: %s } }\n", i, i, val)
		} else {
			fmt.Fprintf(&b, "  r%d: { type: fwtest_latent, properties: { name: r%d, value: %s, after: \"${r%d.id}\" } }\n", i, i, val, i-1)
		}
	}
	return b.String()
}

// readsEngine is an engine on fwtest whose reads and plans wait latency.
func readsEngine(tb testing.TB, dir string, cfg *config.Config, latency time.Duration, tune ...func(*tfprovider.Config)) (*engine.Engine, func()) {
	base, err := sim.Factory(tb.Context(), map[string]string{"dir": filepath.Join(dir, "sim")}, func(string) string { return "" })
	if err != nil {
		tb.Fatal(err)
	}
	pp := cfg.Providers[0]
	pc := tfprovider.Config{
		Name: pp.Name, Source: tfplugintest.Framework.Source(), Executable: tfplugintest.Build(tb, tfplugintest.Framework),
		Settings: pp.Config, Pos: pp.Pos, PropPos: &pp.PropPos, ClientVersion: "1.12.6", Version: "0.1.0",
		Env: []string{"FWTEST_LATENCY=" + latency.String()},
	}
	for _, f := range tune {
		f(&pc)
	}
	p := tfprovider.New(pc)
	r := tfprovider.NewRouter(base, p)
	return engine.New(r, local.New(filepath.Join(dir, ".kyku"), "", local.Options{}), engine.Options{DeployPrefix: "b"}), func() { r.Close() }
}

// BenchmarkPlanReads: N objects applied in chains, 3 changed; Kyku's
// plan, reads and plans at 100 ms each (parallelism 10). OpenTofu's plan
// of the same would take about N × 2 × 100 ms ÷ 10; .ci/bench-reads runs
// both side by side.
//
//	go test -run '^$' -bench BenchmarkPlanReads -benchtime 1x ./internal/provider/tfprovider/
func BenchmarkPlanReads(b *testing.B) {
	for _, n := range []int{500, 5000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			dir := b.TempDir()
			cloud := filepath.Join(dir, "cloud")
			if err := os.MkdirAll(cloud, 0o755); err != nil {
				b.Fatal(err)
			}
			parse := func(v string) *config.Config {
				cfg, err := config.Parse([]config.File{{Name: "kyku.yaml", Data: []byte(strings.ReplaceAll(chains(n, v), "CLOUD", cloud))}})
				if err != nil {
					b.Fatal(err)
				}
				return cfg
			}
			applied := parse("v1")
			e, done := readsEngine(b, dir, applied, 0)
			res, err := e.Apply(b.Context(), applied, engine.ApplyOptions{AutoApprove: true}, nil)
			done()
			if err != nil || res.Err() != nil {
				b.Fatal(err, res.Err())
			}
			b.ResetTimer()
			for b.Loop() {
				cfg := parse("v2")
				e, done := readsEngine(b, dir, cfg, 100*time.Millisecond)
				start := time.Now()
				p, err := e.Plan(b.Context(), cfg)
				wall := time.Since(start)
				done()
				if err != nil {
					b.Fatal(err)
				}
				if p.Counters.Update != 3 {
					b.Fatalf("plan: %+v, want 3 updates", p.Counters)
				}
				b.ReportMetric(wall.Seconds(), "s/plan")
				b.ReportMetric(float64(p.Reads.Read), "reads")
			}
		})
	}
}
