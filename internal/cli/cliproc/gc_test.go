package cliproc

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// gcSettings reads the process's GOGC and memory limit without changing
// them.
func gcSettings() (percent int, limit int64) {
	percent = debug.SetGCPercent(-1)
	debug.SetGCPercent(percent)
	return percent, debug.SetMemoryLimit(-1)
}

// goDefaults sets Go's own collector settings (GOGC=100, no limit) for
// the test, and the process's back, with the environment's phase, once it
// ends.
func goDefaults(t *testing.T) {
	percent, limit := debug.SetGCPercent(100), debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() {
		phase.Store(int32(gcByEnv))
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	})
}

// TestGCBudgetGivesWayToGOGC: the CLI collects to gcBudget while the live
// heap is small, and at GOGC=50 with no limit once the live heap has
// outgrown the budget (collecting ever more often near it would be worse
// than the ratio it replaced); GOGC or GOMEMLIMIT in the environment leave
// Go's own settings alone.
func TestGCBudgetGivesWayToGOGC(t *testing.T) {
	goDefaults(t)

	for _, set := range []string{"GOGC", "GOMEMLIMIT"} {
		tuneGC(func(k string) string {
			if k == set {
				return "100"
			}
			return ""
		})
		if p, l := gcSettings(); p != 100 || l != math.MaxInt64 {
			t.Errorf("with %s set: GOGC %d, limit %d; want Go's (100, none)", set, p, l)
		}
	}

	tuneGC(func(string) string { return "" })
	if p, l := gcSettings(); p != -1 || l != gcBudget {
		t.Fatalf("GOGC %d, limit %d; want off and a budget of %d", p, l, gcBudget)
	}
	runtime.GC()
	time.Sleep(100 * time.Millisecond) // the cleanup runs after the collection, on its own goroutine
	if p, l := gcSettings(); p != -1 || l != gcBudget {
		t.Fatalf("after a collection of a small heap: GOGC %d, limit %d; want the budget kept", p, l)
	}

	// A live heap past two thirds of the budget.
	var live [][]byte
	for n := 0; n < gcBudget*2/3+(1<<20); n += 64 << 10 {
		live = append(live, make([]byte, 64<<10))
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		p, l := gcSettings()
		if p == gcPercent && l == math.MaxInt64 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("live heap of %d MiB: GOGC %d, limit %d; want GOGC=%d and no limit", gcBudget*2/3>>20, p, l, gcPercent)
		}
		time.Sleep(10 * time.Millisecond)
	}
	runtime.KeepAlive(live)
}

// TestOutgrown: the budget gives way once the heap goal it leaves is
// less than half the live heap above it, whatever else the budget holds
// (a plan of 5,000 resources: a live heap of 12 MB, its goal 14 MB).
func TestOutgrown(t *testing.T) {
	for _, c := range []struct {
		live, goal uint64
		want       bool
	}{
		{0, 0, false},
		{4 << 20, gcBudget, false},
		{16 << 20, 24 << 20, false}, // room: half the live heap
		{16 << 20, 24<<20 - 1, true},
		{12 << 20, 14 << 20, true}, // the plan's
		{gcBudget, gcBudget, true},
	} {
		if got := outgrown(c.live, c.goal); got != c.want {
			t.Errorf("outgrown(%d, %d) = %v, want %v", c.live, c.goal, got, c.want)
		}
	}
}

// TestProviderStartDropsBudget: once a run starts a Terraform provider
// process the CLI collects at GOGC=100 with no limit, also after later
// collections; when GOGC or GOMEMLIMIT decide, a provider's start changes
// nothing.
func TestProviderStartDropsBudget(t *testing.T) {
	goDefaults(t)

	tuneGC(func(k string) string {
		if k == "GOGC" {
			return "100"
		}
		return ""
	})
	providerStarted(1234)
	if p, l := gcSettings(); p != 100 || l != math.MaxInt64 {
		t.Errorf("with GOGC set, after a provider started: GOGC %d, limit %d; want Go's (100, none)", p, l)
	}

	tuneGC(func(string) string { return "" })
	if p, l := gcSettings(); p != -1 || l != gcBudget {
		t.Fatalf("GOGC %d, limit %d; want off and a budget of %d", p, l, gcBudget)
	}
	providerStarted(1234)
	providerStarted(5678)
	if p, l := gcSettings(); p != gcLargePercent || l != math.MaxInt64 {
		t.Errorf("after a provider started: GOGC %d, limit %d; want GOGC=%d and no limit", p, l, gcLargePercent)
	}
	// The test's live heap is a few MB: the next collections leave gcRoom.
	waitForPercent(t, "after the next collection", func(p int) bool { return p > gcLargePercent })
	if p, l := gcSettings(); p < gcRoom*100/(64<<20) || l != math.MaxInt64 {
		t.Errorf("after the next collection: GOGC %d, limit %d; want room for %d MiB (GOGC of %d or more for a live heap under 64 MiB) and no limit", p, l, gcRoom>>20, gcRoom*100/(64<<20))
	}

	// A provider started once the budget gave way for its small ratio.
	tuneGC(func(string) string { return "" })
	dropBudget()
	if p, _ := gcSettings(); p != gcPercent {
		t.Fatalf("budget dropped: GOGC %d, want %d", p, gcPercent)
	}
	providerStarted(1234)
	if p, l := gcSettings(); p != gcLargePercent || l != math.MaxInt64 {
		t.Errorf("a provider started at the small ratio: GOGC %d, limit %d; want GOGC=%d and no limit", p, l, gcLargePercent)
	}
}

// TestLargeHeapRaisesRatio: once the live heap passes gcLargeHeap the CLI
// collects at GOGC=100 (half the collector's CPU of GOGC=50 at a
// configuration of 50,000 resources), and stays there; a smaller heap
// stays at GOGC=50 (TestGCBudgetGivesWayToGOGC).
func TestLargeHeapRaisesRatio(t *testing.T) {
	goDefaults(t)
	tuneGC(func(string) string { return "" })
	dropBudget()
	if p, _ := gcSettings(); p != gcPercent {
		t.Fatalf("after the budget gave way: GOGC %d, want %d", p, gcPercent)
	}

	var live [][]byte
	for n := 0; n < gcLargeHeap+(1<<20); n += 1 << 20 {
		live = append(live, make([]byte, 1<<20))
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		if p, l := gcSettings(); p == gcLargePercent && l == math.MaxInt64 {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("live heap of %d MiB: GOGC %d, limit %d; want GOGC=%d and no limit", gcLargeHeap>>20, p, l, gcLargePercent)
		}
		time.Sleep(10 * time.Millisecond)
	}
	runtime.GC()
	if p, _ := gcSettings(); p != gcLargePercent {
		t.Errorf("a live heap of %d MiB, collected again: GOGC %d, want %d (more than gcRoom live)", gcLargeHeap>>20, p, gcLargePercent)
	}
	runtime.KeepAlive(live)
	// The heap shrank: the collector leaves gcRoom again, and a provider
	// started changes nothing.
	waitForPercent(t, "after the heap shrank", func(p int) bool { return p > gcLargePercent })
	providerStarted(5678)
	if p, l := gcSettings(); p <= gcLargePercent || l != math.MaxInt64 {
		t.Errorf("after the heap shrank and another provider started: GOGC %d, limit %d; want more than %d, no limit", p, l, gcLargePercent)
	}
}

// waitForPercent collects until the ratio the collector runs at satisfies
// ok (the settings follow each collection, from its cleanup), or fails.
func waitForPercent(t *testing.T, when string, ok func(int) bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		p, _ := gcSettings()
		if ok(p) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: GOGC %d", when, p)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestRoomPercent: the ratio set after a collection in a provider run
// lets the run allocate about the larger of its live heap and gcRoom,
// the live heap taken from the heap goal the ratio it ran at gave; at
// most tenfold.
func TestRoomPercent(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		cur  int
		next uint64
		want int
	}{
		{100, 64 * mib, 300},     // 32 MiB live: 96 MiB of room at 300
		{300, 128 * mib, 300},    // 32 MiB live at 300: as it was
		{200, 144 * mib, 200},    // 48 MiB live: 96 MiB at 200
		{100, 400 * mib, 100},    // 200 MiB live: its own size, as Go's default
		{400, 1000 * mib, 100},   // 200 MiB live at 400: back to its own size
		{100, 4 * mib, 1_000},    // 2 MiB live: tenfold at most
		{1_000, 33 * mib, 1_000}, // 3 MiB live: tenfold still
		{100, 0, 1_000},
	} {
		if got := roomPercent(c.cur, c.next); got != c.want {
			t.Errorf("roomPercent(%d, goal %d MiB) = %d, want %d", c.cur, c.next/mib, got, c.want)
		}
	}
}
