package sim

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/kyku/action/internal/provider"
)

// BenchmarkCreateRead is one Create of a new Vm with references plus one
// Read, with zero latency: the per-resource cost the engine benchmarks pay.
func BenchmarkCreateRead(b *testing.B) {
	p, err := New(Options{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	ctx := b.Context()
	net, err := p.Create(ctx, vpc("net"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	defer reportCPU(b)()
	i := 0
	for b.Loop() {
		i++
		r := provider.Resource{Name: fmt.Sprintf("vm-%d", i), Type: "Vm", CloudName: fmt.Sprintf("pfx-vm-%d", i),
			Properties: map[string]any{"network": net.ID, "image": "debian-12", "size": "small",
				"tags": map[string]any{"team": "web"}}}
		obj, err := p.Create(ctx, r)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := p.Read(ctx, "Vm", obj.ID); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRead is discovery's cost per resource.
func BenchmarkRead(b *testing.B) {
	p, err := New(Options{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	ctx := b.Context()
	obj, err := p.Create(ctx, vpc("net"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		if _, err := p.Read(ctx, "Vpc", obj.ID); err != nil {
			b.Fatal(err)
		}
	}
}

// reportCPU reports the process's CPU time (user + system) per operation,
// which unlike ns/op does not depend on what else the machine runs.
func reportCPU(b *testing.B) func() {
	start := cpuTime()
	return func() { b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op") }
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
