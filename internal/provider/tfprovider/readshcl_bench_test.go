package tfprovider_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/tfconfig"
	"github.com/kyku/action/internal/tfconfig/benchchains"
)

// BenchmarkPlanReadsHCL is BenchmarkPlanReads on .ci/bench-reads' own
// configuration, in HCL: each plan reads and expands main.tf and plans it
// (reads and plans at 100 ms each), as `kyku plan` does. cpu-ms/plan is
// this process's CPU (user + system) for one whole load + expand + plan.
//
//	go test -run '^$' -bench BenchmarkPlanReadsHCL -benchtime 3x ./internal/provider/tfprovider/
func BenchmarkPlanReadsHCL(b *testing.B) {
	for _, n := range []int{500, 5000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			dir := b.TempDir()
			cloud := filepath.Join(dir, "cloud")
			if err := os.MkdirAll(cloud, 0o755); err != nil {
				b.Fatal(err)
			}
			load := func(changed string) *config.Config {
				if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(benchchains.TF(n, cloud, changed)), 0o600); err != nil {
					b.Fatal(err)
				}
				m, err := tfconfig.Load(dir, nil, tfconfig.Inputs{})
				if err != nil {
					b.Fatal(err)
				}
				cfg, err := tfconfig.Expand(m, tfconfig.Inputs{})
				if err != nil {
					b.Fatal(err)
				}
				return cfg
			}
			applied := load("v1")
			e, done := readsEngine(b, dir, applied, 0)
			res, err := e.Apply(b.Context(), applied, engine.ApplyOptions{AutoApprove: true}, nil)
			done()
			if err != nil || res.Err() != nil {
				b.Fatal(err, res.Err())
			}
			if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(benchchains.TF(n, cloud, "v2")), 0o600); err != nil {
				b.Fatal(err)
			}
			var used time.Duration
			b.ResetTimer()
			for b.Loop() {
				b.StopTimer()
				runtime.GC() // each plan pays for its own garbage, as a fresh process would
				b.StartTimer()
				start, cpu := time.Now(), processCPU()
				m, err := tfconfig.Load(dir, nil, tfconfig.Inputs{})
				if err != nil {
					b.Fatal(err)
				}
				cfg, err := tfconfig.Expand(m, tfconfig.Inputs{})
				if err != nil {
					b.Fatal(err)
				}
				e, done := readsEngine(b, dir, cfg, 100*time.Millisecond)
				p, err := e.Plan(b.Context(), cfg)
				wall := time.Since(start)
				used += processCPU() - cpu
				done()
				if err != nil {
					b.Fatal(err)
				}
				if p.Counters.Update != 3 || p.Reads.Read != 21 {
					b.Fatalf("plan: %+v, %d read; want 3 updates, 21 read", p.Counters, p.Reads.Read)
				}
				b.ReportMetric(wall.Seconds(), "s/plan")
			}
			b.ReportMetric(float64(used.Milliseconds())/float64(b.N), "cpu-ms/plan")
		})
	}
}

// processCPU is the CPU time (user + system) this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
