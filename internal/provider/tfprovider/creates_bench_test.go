package tfprovider_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/provider/tfprovider"
)

// BenchmarkApplyCreates: an apply from no state creating 5,000
// independent fwtest_item objects (parallelism 10), each journaled as an
// intent before its create and as an object after it (engine/intent.go),
// with the provider Kyku's own child (direct) or launched by a journal
// keeper that keeps each create's answer (keeper: engine/answers.go,
// tfplugin/keeper.go). It reports the apply's wall time and the CPU of
// this process and of the processes it started (getrusage, self and
// children: the plugin, and the keeper with it), the keeper's own CPU
// (it reports it as it exits: keeper_cpu_test.go), and the keeper's CPU
// per create. -creates sets the number of creates; -keeper-profile
// writes the keeper's CPU profile to a file.
//
//	go test -run '^$' -bench BenchmarkApplyCreates -benchtime 1x ./internal/provider/tfprovider/
func BenchmarkApplyCreates(b *testing.B) {
	n := *benchCreates
	var yaml strings.Builder
	yaml.WriteString("providers:\n  fwtest: { source: kyku/fwtest, config: { dir: CLOUD } }\nresources:\n")
	for i := range n {
		fmt.Fprintf(&yaml, "  r%d: { type: fwtest_item, properties: { name: r%d, value: v1 } }\n", i, i)
	}
	for _, kept := range []bool{false, true} {
		name := "direct"
		if kept {
			name = "keeper"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				dir := b.TempDir()
				tune, cpuFile := func(*tfprovider.Config) {}, filepath.Join(dir, "keeper-cpu")
				b.Cleanup(func() { d, _ := os.ReadFile(cpuFile); b.Logf("keepers: %q", d) })
				if kept {
					tune = measuredKeeper(cpuFile, *keeperProfile)
				}
				cloud := filepath.Join(dir, "cloud")
				if err := os.MkdirAll(cloud, 0o755); err != nil {
					b.Fatal(err)
				}
				cfg, err := config.Parse([]config.File{{Name: "kyku.yaml", Data: []byte(strings.ReplaceAll(yaml.String(), "CLOUD", cloud))}})
				if err != nil {
					b.Fatal(err)
				}
				e, done := readsEngine(b, dir, cfg, 0, tune)
				before := cpu(b)
				b.StartTimer()
				start := time.Now()
				res, err := e.Apply(b.Context(), cfg, engine.ApplyOptions{AutoApprove: true}, nil)
				wall := time.Since(start)
				b.StopTimer()
				done()
				after := cpu(b)
				if err != nil || res.Err() != nil || len(res.Succeeded) != n {
					b.Fatal(err, res.Err())
				}
				b.ReportMetric(wall.Seconds(), "s/apply")
				b.ReportMetric((after.self - before.self).Seconds(), "s-cpu-kyku/apply")
				var kcpu, ksys time.Duration
				if kept {
					if kcpu, ksys, err = keeperCPU(cpuFile); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric((after.children - before.children - kcpu).Seconds(), "s-cpu-plugin/apply")
				b.ReportMetric(kcpu.Seconds(), "s-cpu-keeper/apply")
				b.ReportMetric(ksys.Seconds(), "s-sys-keeper/apply")
				b.ReportMetric(float64(kcpu.Microseconds())/1000/float64(n), "ms-cpu-keeper/create")
				b.StartTimer()
			}
		})
	}
}

var (
	benchCreates  = flag.Int("creates", 5000, "BenchmarkApplyCreates: the number of creates")
	keeperProfile = flag.String("keeper-profile", "", "BenchmarkApplyCreates: write the journal keeper's CPU profile to this file")
)

type cpuTimes struct{ self, children time.Duration }

// cpu is the user and system CPU of this process and of its reaped
// children so far.
func cpu(b *testing.B) cpuTimes {
	var self, children syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &self); err != nil {
		b.Fatal(err)
	}
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children); err != nil {
		b.Fatal(err)
	}
	d := func(r syscall.Rusage) time.Duration {
		return time.Duration(r.Utime.Nano() + r.Stime.Nano())
	}
	return cpuTimes{self: d(self), children: d(children)}
}
