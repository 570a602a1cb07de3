package engine_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/progress"
	"github.com/kyku/action/internal/provider/sim"
	"github.com/kyku/action/internal/statemgr/local"
)

// layered returns a config of n resources in 4 levels: Vpc ← SecurityGroup
// ← Vm ← TargetGroup, n/4 chains.
func layered(tb testing.TB, n int) *config.Config {
	tb.Helper()
	var b strings.Builder
	b.WriteString("provider: sim\nresources:\n")
	for i := 0; i < n/4; i++ {
		fmt.Fprintf(&b, "  vpc-%d:\n    type: Vpc\n    properties: { cidr: 10.%d.0.0/16 }\n", i, i%250)
		fmt.Fprintf(&b, "  sg-%d:\n    type: SecurityGroup\n    properties: { network: \"${vpc-%d}\" }\n", i, i)
		fmt.Fprintf(&b, "  vm-%d:\n    type: Vm\n    properties: { network: \"${vpc-%d}\", securityGroups: [\"${sg-%d}\"], image: debian-12 }\n", i, i, i)
		fmt.Fprintf(&b, "  tg-%d:\n    type: TargetGroup\n    properties: { targets: [\"${vm-%d}\"] }\n", i, i)
	}
	cfg, err := config.Parse([]config.File{{Name: "bench.yaml", Data: []byte(b.String())}})
	if err != nil {
		tb.Fatal(err)
	}
	return cfg
}

type benchWorld struct {
	dir  string
	opts sim.Options
}

func (w benchWorld) engine(tb testing.TB, mods ...func(*engine.Options)) *engine.Engine {
	tb.Helper()
	e, _ := w.engineAndBackend(tb, mods...)
	return e
}

func (w benchWorld) engineAndBackend(tb testing.TB, mods ...func(*engine.Options)) (*engine.Engine, *local.Backend) {
	tb.Helper()
	o := w.opts
	o.Dir = filepath.Join(w.dir, "sim")
	if d := os.Getenv("KYKU_BENCH_SIM_DIR"); d != "" {
		// The simulated cloud elsewhere (e.g. tmpfs), state stays on disk.
		o.Dir = filepath.Join(d, filepath.Base(w.dir))
		tb.Cleanup(func() { os.RemoveAll(o.Dir) })
	}
	p, err := sim.New(o)
	if err != nil {
		tb.Fatal(err)
	}
	sd := filepath.Join(w.dir, "state")
	if err := os.MkdirAll(sd, 0o755); err != nil {
		tb.Fatal(err)
	}
	eo := engine.Options{DeployPrefix: "bench"}
	for _, m := range mods {
		m(&eo)
	}
	b := local.New(sd, "", local.Options{})
	return engine.New(p, b, eo), b
}

// cpu returns the process's user+system CPU time so far.
func cpu() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkPlan plans N resources in 4 levels against an applied state
// (every resource is read from the sim, zero latency).
func BenchmarkPlan(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			w := benchWorld{dir: b.TempDir()}
			e := w.engine(b)
			if res, err := e.Apply(b.Context(), layered(b, n), engine.ApplyOptions{AutoApprove: true}, nil); err != nil || res.Err() != nil {
				b.Fatal(err, res.Err())
			}
			b.ReportAllocs()
			b.ResetTimer()
			var used time.Duration
			for i := 0; i < b.N; i++ {
				// A fresh config per plan (Plan adds auto-subnets to it),
				// parsed outside the measurement, and a collection before
				// the plan: each plan pays for its own garbage, as in a
				// fresh process, not for what earlier iterations left.
				b.StopTimer()
				cfg := layered(b, n)
				runtime.GC()
				b.StartTimer()
				start := cpu()
				p, err := e.Plan(b.Context(), cfg)
				used += cpu() - start
				if err != nil {
					b.Fatal(err)
				}
				if p.Counters.NoOp != n {
					b.Fatalf("plan: %+v", p.Counters)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/resource")
			b.ReportMetric(float64(used.Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}

// BenchmarkPlanScaling plans 1,000 and 10,000 applied resources in turn
// (ten of the small for one of the large, each after a collection) and
// reports the large plan's CPU over the small one's: alternating keeps a
// shared machine's changing load from favouring either size.
func BenchmarkPlanScaling(b *testing.B) {
	ctx := b.Context()
	small, large := benchWorld{dir: b.TempDir()}.engine(b), benchWorld{dir: b.TempDir()}.engine(b)
	for _, x := range []struct {
		e *engine.Engine
		n int
	}{{small, 1000}, {large, 10000}} {
		if res, err := x.e.Apply(ctx, layered(b, x.n), engine.ApplyOptions{AutoApprove: true}, nil); err != nil || res.Err() != nil {
			b.Fatal(err, res.Err())
		}
	}
	plan := func(e *engine.Engine, n int) time.Duration {
		b.StopTimer()
		cfg := layered(b, n)
		runtime.GC()
		b.StartTimer()
		start := cpu()
		p, err := e.Plan(ctx, cfg)
		used := cpu() - start
		if err != nil || p.Counters.NoOp != n {
			b.Fatal(err)
		}
		return used
	}
	var cpuSmall, cpuLarge time.Duration
	for i := 0; i < b.N; i++ {
		for range 10 {
			cpuSmall += plan(small, 1000)
		}
		cpuLarge += plan(large, 10000)
	}
	b.ReportMetric(float64(cpuLarge)/float64(cpuSmall/10), "cpu-ratio-10x")
}

// BenchmarkApply applies N resources in 4 levels from an empty state,
// zero sim latency: CPU time per apply.
func BenchmarkApply(b *testing.B) {
	n := 5000
	b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
		b.ReportAllocs()
		var total time.Duration
		syncs := 0
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			w := benchWorld{dir: b.TempDir()}
			e, backend := w.engineAndBackend(b)
			cfg := layered(b, n)
			b.StartTimer()
			start := cpu()
			res, err := e.Apply(b.Context(), cfg, engine.ApplyOptions{AutoApprove: true}, nil)
			total += cpu() - start
			if err != nil || res.Err() != nil || len(res.Succeeded) != n {
				b.Fatal(err, res.Err())
			}
			syncs += backend.JournalSyncs()
		}
		b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "cpu-ms/op")
		b.ReportMetric(float64(syncs)/float64(b.N), "fsyncs/op")
	})
}

// durations records how long each change took, for the schedule bound.
type durations struct {
	recorder
}

// span is the time from the first change's start to the last one's end:
// the schedule itself, without planning before it and the state write after.
func (d *durations) span() time.Duration {
	d.mu.Lock()
	defer d.mu.Unlock()
	var first, last time.Time
	for _, e := range d.events {
		if e.Kind == progress.Started && (first.IsZero() || e.Time.Before(first)) {
			first = e.Time
		}
		if e.Kind == progress.Done && e.Time.After(last) {
			last = e.Time
		}
	}
	return last.Sub(first)
}

func (d *durations) byName() map[string]time.Duration {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := map[string]time.Duration{}
	for _, e := range d.events {
		if e.Kind == progress.Done {
			out[e.Name] = e.Elapsed
		}
	}
	return out
}

// bound is max(critical path, total work / parallelism) for the layered
// config's chains with the measured durations.
func bound(n, parallelism int, d map[string]time.Duration) (time.Duration, time.Duration, time.Duration) {
	var total, critical time.Duration
	for _, v := range d {
		total += v
	}
	for i := 0; i < n/4; i++ {
		path := d[fmt.Sprintf("vpc-%d", i)] + d[fmt.Sprintf("sg-%d", i)] + d[fmt.Sprintf("vm-%d", i)] + d[fmt.Sprintf("tg-%d", i)]
		critical = max(critical, path)
	}
	return max(critical, total/time.Duration(parallelism)), critical, total
}

// BenchmarkApplyLatency applies 1,000 resources in 4 levels with sim latency
// drawn from 5–200 ms per call, parallelism 10 and 50, with the ready-queue
// schedule and with a level-barrier schedule, and reports over the bound
// max(critical path, total work / parallelism) both the schedule's wall
// time (first change started → last done) and the whole apply's (planning,
// backup and the final state write included).
func BenchmarkApplyLatency(b *testing.B) {
	for _, par := range []int{10, 50} {
		for _, mode := range []string{"ready-queue", "level-barrier"} {
			b.Run(fmt.Sprintf("parallelism=%d/%s", par, mode), func(b *testing.B) {
				n := 1000
				var ratio, total float64
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					w := benchWorld{dir: b.TempDir(), opts: sim.Options{LatencyMin: 5 * time.Millisecond, LatencyMax: 200 * time.Millisecond, Seed: int64(i + 1)}}
					d := &durations{}
					e := w.engine(b, func(o *engine.Options) {
						o.Parallelism, o.Hook, o.LevelBarrier = par, d, mode == "level-barrier"
					})
					cfg := layered(b, n)
					b.StartTimer()
					start := time.Now()
					res, err := e.Apply(b.Context(), cfg, engine.ApplyOptions{AutoApprove: true}, nil)
					wall := time.Since(start)
					if err != nil || res.Err() != nil {
						b.Fatal(err, res.Err())
					}
					bd, cp, work := bound(n, par, d.byName())
					ratio += float64(d.span()) / float64(bd)
					total += float64(wall) / float64(bd)
					b.Logf("parallelism %d, %s: schedule %v, whole apply %v, bound %v (critical path %v, work %v / %d)",
						par, mode, d.span().Round(time.Millisecond), wall.Round(time.Millisecond), bd.Round(time.Millisecond), cp.Round(time.Millisecond), work.Round(time.Millisecond), par)
				}
				b.ReportMetric(ratio/float64(b.N), "schedule/bound")
				b.ReportMetric(total/float64(b.N), "apply/bound")
			})
		}
	}
}

// BenchmarkDiscovery plans 1,000 applied resources with 10 ms sim latency
// and parallelism 10: the bound is 1,000 × 10 ms / 10 = 1 s.
func BenchmarkDiscovery(b *testing.B) {
	n := 1000
	dir := b.TempDir()
	w := benchWorld{dir: dir}
	if res, err := w.engine(b).Apply(b.Context(), layered(b, n), engine.ApplyOptions{AutoApprove: true}, nil); err != nil || res.Err() != nil {
		b.Fatal(err, res.Err())
	}
	w.opts = sim.Options{LatencyMin: 10 * time.Millisecond, LatencyMax: 10 * time.Millisecond}
	e := w.engine(b, func(o *engine.Options) { o.Parallelism = 10 })
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := e.Plan(b.Context(), layered(b, n)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(time.Second), "s/op-vs-bound-1s")
}
