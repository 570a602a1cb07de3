package engine

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/sim"
	"github.com/kyku/action/internal/state"
)

// BenchmarkDiscover reads 1,000 resources with 10 ms sim latency per call
// and parallelism 10. The bound is 1,000 × 10 ms / 10 = 1 s; the metric is
// wall time over that bound.
func BenchmarkDiscover(b *testing.B) {
	const n, lat, par = 1000, 10 * time.Millisecond, 10
	dir := filepath.Join(b.TempDir(), "sim")
	fast, err := sim.New(sim.Options{Dir: dir})
	if err != nil {
		b.Fatal(err)
	}
	st := state.New("bench", "lineage", "")
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("key-%d", i)
		o, err := fast.Create(b.Context(), provider.Resource{
			Name: name, Type: "SshKey", CloudName: "bench-" + name, Properties: map[string]any{"publicKey": name},
		})
		if err != nil {
			b.Fatal(err)
		}
		st.Resources[name] = &state.Resource{Name: name, Type: "SshKey", ProviderID: o.ID}
	}
	slow, err := sim.New(sim.Options{Dir: dir, LatencyMin: lat, LatencyMax: lat})
	if err != nil {
		b.Fatal(err)
	}
	e := New(slow, nil, Options{Parallelism: par})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		objs, gone, err := e.discover(b.Context(), st, nil, nil)
		if err != nil || len(objs) != n || len(gone) != 0 {
			b.Fatalf("discover: %v, %d objects, %d gone", err, len(objs), len(gone))
		}
	}
	bound := time.Duration(n) * lat / par
	b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(bound), "wall/bound")
}
