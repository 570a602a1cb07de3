package engine_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/engine"
)

// countYAMLs returns a configuration of n Vms from one count (and the
// variable that sizes it), and the same n Vms written out one by one; both
// also hold the Vpc they reference.
func countYAMLs(n int) (counted, written []byte) {
	head := "provider: sim\nresources:\n  net:\n    type: Vpc\n    properties: { cidr: 10.0.0.0/16 }\n"
	c := "variables:\n  replicas: { type: number, default: " + fmt.Sprint(n) + ", max: 10000 }\n" + head +
		"  web:\n    type: Vm\n    count: \"${var.replicas}\"\n" +
		"    properties: { image: debian-12, size: small, network: \"${net}\", tags: { index: \"${count.index}\", role: web } }\n"
	var b strings.Builder
	b.WriteString(head)
	for i := range n {
		fmt.Fprintf(&b, "  web-%d:\n    type: Vm\n    properties: { image: debian-12, size: small, network: \"${net}\", tags: { index: \"%d\", role: web } }\n", i, i)
	}
	return []byte(c), []byte(b.String())
}

// BenchmarkPlanCount plans 5,000 applied Vms from one count against the
// same 5,000 written out, in turn (each after a collection, so that a
// shared machine's changing load favours neither), parse and expansion of
// the YAML included, and reports count's CPU over written-out's: the
// target is at most 1.2×.
func BenchmarkPlanCount(b *testing.B) {
	const n = 5000
	ctx := b.Context()
	counted, written := countYAMLs(n)
	parse := func(data []byte) *config.Config {
		cfg, err := config.ParseEnv([]config.File{{Name: "kyku.yaml", Data: data}}, config.Inputs{})
		if err != nil {
			b.Fatal(err)
		}
		return cfg
	}
	ce, we := benchWorld{dir: b.TempDir()}.engine(b), benchWorld{dir: b.TempDir()}.engine(b)
	for _, x := range []struct {
		e    *engine.Engine
		data []byte
	}{{ce, counted}, {we, written}} {
		if res, err := x.e.Apply(ctx, parse(x.data), engine.ApplyOptions{AutoApprove: true}, nil); err != nil || res.Err() != nil {
			b.Fatal(err, res.Err())
		}
	}
	plan := func(e *engine.Engine, data []byte) time.Duration {
		b.StopTimer()
		runtime.GC()
		b.StartTimer()
		start := cpu()
		p, err := e.Plan(ctx, parse(data))
		used := cpu() - start
		if err != nil || p.Counters.NoOp != n+1 || p.HasChanges() {
			b.Fatalf("plan: %v %+v", err, p.Counters)
		}
		return used
	}
	var cpuCount, cpuWritten time.Duration
	for i := 0; i < b.N; i++ {
		if i%2 == 0 {
			cpuCount += plan(ce, counted)
			cpuWritten += plan(we, written)
		} else {
			cpuWritten += plan(we, written)
			cpuCount += plan(ce, counted)
		}
	}
	b.ReportMetric(float64(cpuCount.Microseconds())/1000/float64(b.N), "count-cpu-ms/op")
	b.ReportMetric(float64(cpuWritten.Microseconds())/1000/float64(b.N), "written-cpu-ms/op")
	b.ReportMetric(float64(cpuCount)/float64(cpuWritten), "cpu-ratio")
}
