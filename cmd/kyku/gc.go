package main

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// The CLI's garbage collector works to a memory budget rather than to a
// ratio. A command lives a second or less and keeps its configuration,
// plan and state live to the end (about 16 MB at 5,000 resources); with a
// ratio (GOGC) every collection marks all of that again after a fixed
// fraction of it was allocated, so a lower GOGC buys a lower peak with
// more CPU: at GOGC=50 an apply of 5,000 resources collected 19 times.
// Under a budget the collector runs only when the process's Go memory
// reaches gcBudget, however small the live heap, and about 5 times in that
// apply, for the same peak (README "Benchmarks").
//
// A budget alone would make the collector run ever more often as the live
// heap nears it (a configuration of 50,000 resources outgrows it): after
// every collection the live heap is read, and once it passes
// gcBudget*3/5 — where the budget leaves as much room to allocate as
// GOGC=50 would, half the live heap — the budget is dropped for GOGC=50,
// which the CLI used alone before. So no run collects more often than at
// GOGC=50. GOGC or GOMEMLIMIT in the environment still decide.
const (
	gcBudget  = 30 << 20
	gcPercent = 50
)

func tuneGC(getenv func(string) string) {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(gcBudget)
	watchLiveHeap()
}

// gcTick is an object nothing keeps: its cleanup runs after the next
// collection. It holds a pointer so that the allocator never batches it
// with other small objects (which could keep its cleanup from running).
type gcTick struct{ _ *gcTick }

// watchLiveHeap calls afterGC once the next collection has finished.
func watchLiveHeap() {
	runtime.AddCleanup(&gcTick{}, afterGC, struct{}{})
}

// afterGC drops the budget for gcPercent when the live heap has outgrown
// it, and waits for the next collection otherwise.
func afterGC(struct{}) {
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(live)
	if live[0].Value.Kind() == metrics.KindUint64 && outgrown(live[0].Value.Uint64()) {
		debug.SetGCPercent(gcPercent)
		debug.SetMemoryLimit(math.MaxInt64)
		return
	}
	watchLiveHeap()
}

// outgrown reports whether a live heap of that many bytes leaves less room
// to allocate under gcBudget than gcPercent would give it: the heap may
// take about nine tenths of the budget (the rest is stacks and the
// runtime's own), and 0.9 budget - live < live/2 from 3/5 of it on.
func outgrown(live uint64) bool {
	return live >= gcBudget*3/5
}
