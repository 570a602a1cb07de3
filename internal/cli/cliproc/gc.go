package cliproc

import (
	"math"
	"runtime"
	"runtime/debug"
	"sync/atomic"
)

// The CLI's garbage collector works to a memory budget rather than to a
// ratio. A command lives a second or less and keeps its configuration,
// plan and state live to the end (about 16 MB at 5,000 resources); with a
// ratio (GOGC) every collection marks all of that again after a fixed
// fraction of it was allocated, so a lower GOGC buys a lower peak with
// more CPU: at GOGC=50 an apply of 5,000 resources collected 19 times.
// Under a budget the collector runs only when the process's Go memory
// reaches gcBudget, however small the live heap, and about 5 times in that
// apply, for the same peak (docs/changelog.md, "The garbage collector's budget").
//
// A budget alone would make the collector run ever more often as the live
// heap nears it (a configuration of 50,000 resources outgrows it): after
// every collection the live heap and the heap goal the budget gives are
// read, and once the budget leaves less room to allocate than GOGC=50
// would, half the live heap, the budget is dropped for GOGC=50, which the
// CLI used alone before. So no run collects more often than at GOGC=50.
// GOGC or GOMEMLIMIT in the environment still decide.
//
// A run that starts a Terraform provider gives the budget up for
// gcLargePercent, Go's default (providerStarted): the provider process's
// memory sits beside Kyku's for the whole run, so the budget's room is
// worth less there (the CLI's peak in an apply of 1,000 null_resources:
// 47 MB under the budget, 38 MB at GOGC=50, docs/changelog.md "Terraform
// providers, run by run"), but the run allocates with every call it makes
// to the provider: an apply of 5,000 null_resources allocated 350 MB, and
// at GOGC=50 its collector took about a sixth of Kyku's CPU. At GOGC=100
// that apply took 0.4 s less of Kyku's CPU (3.60-3.78 s against
// 4.03-4.21 s, interleaved) for a peak of 113 MB against 107 MB, and the
// provider's own process reaches 150 MB.
//
// Once the live heap passes gcLargeHeap the collector runs at
// gcLargePercent, Go's default, from then on. Under a ratio a collection
// marks the whole live heap once for every ratio × live heap allocated,
// so the collector's CPU is about what the run allocates over the ratio,
// whatever the heap's size: twice as much at GOGC=50 as at GOGC=100, for
// a peak a quarter lower (the live heap and half again, against twice
// it). Below gcLargeHeap that is a tenth of a second or less (a plan of
// 5,000 resources: about 0.7 s of CPU at either, 110 MB at its
// peak at GOGC=50, 119 MB at 100); above, seconds: a plan of 50,000
// resources (a live heap of 490 MB at its end) took 7.9 s of CPU and
// 800 MB at GOGC=50, 6.2 s and 890 MB at GOGC=100, 5.7 s and 1,040 MB
// at GOGC=200. A memory limit near the live heap costs more CPU than any
// of these (GOGC=100 with GOMEMLIMIT=700MiB: 10.1 s, 745 MB), and the
// live heap's size is the configuration's, so the CLI sets none.
//
// In that last phase the collector also leaves at least gcRoom to allocate
// between collections: after each one the ratio is set so that the next
// comes once the run has allocated the larger of its live heap and gcRoom
// (roomPercent). A run with Terraform providers keeps a small live heap
// (about 30 MB at the end of an apply of 5,000 null_resources) and
// allocates with every call it makes, so at GOGC=100 it collected every
// 30 MB or so: with gcRoom (three pairs against GOGC=100, interleaved)
// that apply took 1.69–1.75 s of Kyku's CPU against 1.68–1.93 s, for a
// peak of 148–150 MB against 111–115 MB, and its plan 0.27–0.29 s against
// 0.33–0.36 s, for 108 MB against 80 MB. A heap past gcRoom collects at
// gcLargePercent, as before.
const (
	gcBudget       = 30 << 20
	gcPercent      = 50
	gcLargeHeap    = 128 << 20
	gcLargePercent = 100
	gcRoom         = 96 << 20
)

// roomPercent is the ratio that lets the run allocate about the larger
// of its live heap and gcRoom before the next collection, from the ratio
// it runs at (cur) and the heap goal that gives (next): the goal is the
// heap marked live and cur percent of it and of the roots the collector
// scans (stacks, globals), so the heap marked is taken as next over
// 1 + cur/100 (the roots a few MB at most here; MemStats gives the
// marked heap in no field, and HeapAlloc, read when the cleanup runs,
// has grown by what was allocated since, up to the goal: reading that as
// the live heap made a room of a few bytes and a ratio of 10,000 after
// the first collection). At most tenfold, so that roots misjudged at a
// tiny heap cost a little more room, never a hundred times.
func roomPercent(cur int, next uint64) int {
	const most = 1_000
	marked := next * 100 / uint64(100+max(cur, 0))
	if marked == 0 {
		return most
	}
	return int(min(most, max(gcLargePercent, gcRoom*100/marked)))
}

// gcPhase is how the collector is tuned, in the order a run goes through
// them.
type gcPhase int32

const (
	gcByEnv      gcPhase = iota // GOGC or GOMEMLIMIT decide: nothing is tuned
	gcBudgeted                  // to gcBudget
	gcSmallRatio                // at gcPercent
	gcLargeRatio                // at gcLargePercent, from then on
)

// phase is the current gcPhase.
var phase atomic.Int32

// largeSet is the ratio last set in gcLargeRatio.
var largeSet atomic.Int32

// advance moves the collector from phase from to phase to, and reports
// whether it did (it was in from).
func advance(from, to gcPhase) bool {
	if !phase.CompareAndSwap(int32(from), int32(to)) {
		return false
	}
	switch to {
	case gcSmallRatio:
		debug.SetGCPercent(gcPercent)
		debug.SetMemoryLimit(math.MaxInt64)
	case gcLargeRatio:
		largeSet.Store(gcLargePercent)
		debug.SetGCPercent(gcLargePercent)
		debug.SetMemoryLimit(math.MaxInt64)
	}
	return true
}

func tuneGC(getenv func(string) string) {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		phase.Store(int32(gcByEnv))
		return
	}
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(gcBudget)
	phase.Store(int32(gcBudgeted))
	watchLiveHeap()
}

// dropBudget collects at gcPercent from now on, when the budget decides.
func dropBudget() { advance(gcBudgeted, gcSmallRatio) }

// providerStarted is called with each Terraform provider process the
// run starts: the collector runs at gcLargePercent from then on, unless
// the environment decides.
func providerStarted(int) {
	terraformRun.Store(true)
	if !advance(gcBudgeted, gcLargeRatio) {
		advance(gcSmallRatio, gcLargeRatio)
	}
}

// terraformLoaded is called as the run starts loading a Terraform
// configuration, whose providers are Terraform providers: it collects as
// once they start, from the load on (the budget would otherwise collect
// the configuration and state as they are read, only to give way at the
// provider's start: a plan of 5,000 null_resources took 0.37–0.45 s of
// CPU so, 0.34–0.38 s at GOGC=100 from its start, for the same peak).
func terraformLoaded() { providerStarted(0) }

// gcTick is an object nothing keeps: its cleanup runs after the next
// collection. It holds a pointer so that the allocator never batches it
// with other small objects (which could keep its cleanup from running).
type gcTick struct{ _ *gcTick }

// watchLiveHeap calls afterGC once the next collection has finished.
func watchLiveHeap() {
	runtime.AddCleanup(&gcTick{}, afterGC, struct{}{})
}

// afterGC drops the budget for gcPercent when the live heap has outgrown
// it, raises the ratio to gcLargePercent once the live heap has passed
// gcLargeHeap, sets the ratio that leaves gcRoom in gcLargeRatio, and
// waits for the next collection. The room the
// budget leaves is the runtime's own heap goal (NextGC) less the live
// heap: the goal counts everything the memory limit counts (stacks, the
// runtime's own structures, and freed pages not yet returned to the
// system, which the limit counts and an estimate from the memory classes
// missed: a plan of 5,000 resources collected eight times in a row with
// a megabyte of room). It reads them through runtime.ReadMemStats, not
// runtime/metrics: every package a binary links is initialised at start,
// whatever the command, and runtime/metrics builds its table of every
// GODEBUG's counter then (kyku version paid for it;
// TestKykuLinksNoEngineParts). Just after a collection HeapAlloc is the
// heap it marked live, plus what was allocated since (a little more,
// never less: each step can only come a little earlier).
func afterGC(struct{}) {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	switch gcPhase(phase.Load()) {
	case gcBudgeted:
		if outgrown(m.HeapAlloc, m.NextGC) {
			dropBudget()
		}
	case gcSmallRatio:
		if m.HeapAlloc >= gcLargeHeap {
			advance(gcSmallRatio, gcLargeRatio)
		}
	case gcLargeRatio:
		cur := int(largeSet.Load())
		if p := roomPercent(cur, m.NextGC); p != cur {
			largeSet.Store(int32(p))
			debug.SetGCPercent(p)
		}
	default:
		return // the environment decides
	}
	watchLiveHeap()
}

// outgrown reports whether, with a live heap of that many bytes and a
// heap goal of goal bytes under gcBudget, the budget leaves less room to
// allocate than gcPercent would: goal - live < live*gcPercent/100.
func outgrown(live, goal uint64) bool {
	return goal < live+live*gcPercent/100
}
