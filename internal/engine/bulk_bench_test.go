package engine_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/sim"
	"github.com/kyku/action/internal/statemgr/local"
)

// layeredTypes is how many objects of each type layered(n) holds: Vpc,
// SecurityGroup, Vm and TargetGroup, n/4 each.
func layeredTypes(n int) map[string]int {
	return map[string]int{"Vpc": n / 4, "SecurityGroup": n / 4, "Vm": n / 4, "TargetGroup": n / 4}
}

// bulkBound is the most calls bulk discovery of counts may make: per type,
// its pages of pageSize (an empty type still costs one).
func bulkBound(counts map[string]int, pageSize int) int64 {
	var calls int64
	for _, n := range counts {
		calls += int64(max(1, (n+pageSize-1)/pageSize))
	}
	return calls
}

// planWith plans cfg's applied state in dir against a simulator opened
// with opts (the state and the cloud as applied), returning the calls it
// served and the plan's wall time.
func planWith(tb testing.TB, dir string, opts sim.Options, n int) (sim.Calls, time.Duration) {
	tb.Helper()
	opts.Dir = filepath.Join(dir, "sim")
	p, err := sim.Open(opts)
	if err != nil {
		tb.Fatal(err)
	}
	counter, ok := p.(*sim.Provider)
	if b, isBulk := p.(sim.Bulk); isBulk {
		counter, ok = b.Provider, true
	}
	if !ok {
		tb.Fatalf("sim.Open returned %T", p)
	}
	defer counter.Close()
	e := engine.New(p, local.New(filepath.Join(dir, "state"), "", local.Options{}), engine.Options{DeployPrefix: "bench"})
	cfg := layered(tb, n)
	start := time.Now()
	pl, err := e.PlanWith(tb.Context(), cfg, engine.PlanOptions{Refresh: engine.RefreshAll}) // every object: what discovery costs
	wall := time.Since(start)
	if err != nil {
		tb.Fatal(err)
	}
	if pl.Counters.NoOp != n {
		tb.Fatalf("plan of %d applied resources: %+v", n, pl.Counters)
	}
	return counter.Calls(), wall
}

// applyLayered applies layered(n) into dir with a zero-latency simulator.
func applyLayered(tb testing.TB, dir string, n int) {
	tb.Helper()
	p, err := sim.New(sim.Options{Dir: filepath.Join(dir, "sim")})
	if err != nil {
		tb.Fatal(err)
	}
	defer p.Close()
	if err := os.MkdirAll(filepath.Join(dir, "state"), 0o755); err != nil {
		tb.Fatal(err)
	}
	e := engine.New(p, local.New(filepath.Join(dir, "state"), "", local.Options{}), engine.Options{DeployPrefix: "bench"})
	res, err := e.Apply(tb.Context(), layered(tb, n), engine.ApplyOptions{AutoApprove: true}, nil)
	if err != nil || res.Err() != nil {
		tb.Fatal(err, res.Err())
	}
}

// Bulk discovery of an applied plan costs at most one call per page of
// each type (plus the plan's one Zones call), never one per resource.
func TestBulkDiscoveryCallBound(t *testing.T) {
	const n, pageSize = 400, 40
	dir := t.TempDir()
	applyLayered(t, dir, n)
	bulk, _ := planWith(t, dir, sim.Options{Bulk: true, PageSize: pageSize}, n)
	bound := bulkBound(layeredTypes(n), pageSize) // 4 types × 3 pages of 40 for 100 each
	if got := bulk.List + bulk.Read; got > bound || bulk.Read != 0 {
		t.Errorf("bulk discovery: %d list pages + %d reads, want at most %d (types + pages) and no Read", bulk.List, bulk.Read, bound)
	}
	one, _ := planWith(t, dir, sim.Options{}, n)
	if one.Read != n || one.List != 0 {
		t.Errorf("per-resource discovery: %d reads, %d lists; want %d reads", one.Read, one.List, n)
	}
}

// BenchmarkBulkDiscovery plans 1,000 and 5,000 applied resources (4
// types, layered) at 100 ms simulated latency per call, parallelism 10,
// discovering per resource and in bulk (pages of 1,000), in one run. It
// reports the provider calls of the plan (Zones included), the discovery
// calls, the calls bulk discovery may make at most (types + pages), and
// the plan's wall time in seconds.
func BenchmarkBulkDiscovery(b *testing.B) {
	const latency, pageSize = 100 * time.Millisecond, 1000
	for _, n := range []int{1000, 5000} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			applyLayered(b, dir, n)
			bound := bulkBound(layeredTypes(n), pageSize)
			for _, bulk := range []bool{false, true} {
				mode := map[bool]string{false: "per-resource", true: "bulk"}[bulk]
				b.Run(mode, func(b *testing.B) {
					var calls sim.Calls
					var wall time.Duration
					for i := 0; i < b.N; i++ {
						c, w := planWith(b, dir, sim.Options{LatencyMin: latency, LatencyMax: latency, Bulk: bulk, PageSize: pageSize}, n)
						calls.Zones += c.Zones
						calls.Read += c.Read
						calls.List += c.List
						wall += w
					}
					disc := float64(calls.Read+calls.List) / float64(b.N)
					if bulk && disc > float64(bound) {
						b.Fatalf("bulk discovery made %.0f calls, more than types + pages = %d", disc, bound)
					}
					b.ReportMetric(float64(calls.Zones+calls.Read+calls.List)/float64(b.N), "calls/plan")
					b.ReportMetric(disc, "discovery-calls/plan")
					b.ReportMetric(float64(bound), "bulk-bound-calls")
					b.ReportMetric(wall.Seconds()/float64(b.N), "s/plan")
				})
			}
		})
	}
}

var _ provider.Reader = sim.Bulk{}
