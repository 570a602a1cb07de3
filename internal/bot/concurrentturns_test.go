package bot_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kyku/action/internal/provider"
)

// gate holds the sim's Create of one object until the test lets it go: an
// apply that reaches it holds its leases (or the state lock) meanwhile. It
// also counts the Creates in flight, to tell applies that overlap.
type gate struct {
	name     string
	entered  chan struct{} // closed when the gated Create starts
	release  chan struct{} // closed by the test
	once     sync.Once
	mu       sync.Mutex
	inFlight int
	most     int
}

func newGate(name string) *gate {
	return &gate{name: name, entered: make(chan struct{}), release: make(chan struct{})}
}

func (g *gate) wrap(p provider.Provider) provider.Provider { return gatedSim{Provider: p, g: g} }

// open lets the gated Create go on (once).
func (g *gate) open() { g.once.Do(func() { close(g.release) }) }

// overlapped is the most Creates that were in flight at once.
func (g *gate) overlapped() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.most
}

type gatedSim struct {
	provider.Provider
	g *gate
}

func (s gatedSim) Create(ctx context.Context, r provider.Resource) (provider.Object, error) {
	s.g.mu.Lock()
	s.g.inFlight++
	s.g.most = max(s.g.most, s.g.inFlight)
	s.g.mu.Unlock()
	defer func() {
		s.g.mu.Lock()
		s.g.inFlight--
		s.g.mu.Unlock()
	}()
	if r.Name == s.g.name {
		close(s.g.entered)
		select {
		case <-s.g.release:
		case <-ctx.Done():
			return provider.Object{}, ctx.Err()
		}
	}
	return s.Provider.Create(ctx, r)
}

// waitFor waits for ch to be closed (at most 20s).
func waitFor(t *testing.T, what string, ch <-chan struct{}) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(20 * time.Second):
		t.Fatal(what)
	}
}

const applied = `kyku_bot_jobs_total{kind="apply",outcome="applied"}`

// TestDisjointPRsApplyAtOnce (issue 41): with the default settings, while PR 2's apply holds its lease on Vm "a" (its create is
// held), PR 3's apply of Vm "b" on the same state runs and finishes; then
// PR 2's finishes too, and neither reverts the other's object.
func TestDisjointPRsApplyAtOnce(t *testing.T) {
	g := newGate("a")
	h, _, _ := s3Project(t, harnessOpts{sim: g.wrap}, "", true, configV1+vmA, configV1+vmB)
	t.Cleanup(g.open)
	openPRs(t, h)
	h.deliver("issue_comment", commentOn(t, 2, "writer", "User", "/kyku apply", 1001))
	waitFor(t, "PR 2's apply never created a", g.entered)
	h.deliver("issue_comment", commentOn(t, 3, "writer", "User", "/kyku apply", 1002))
	eventually(t, "PR 3's apply waited for PR 2's", func() bool { return h.metrics()[applied] == 1 })
	if cloud := h.cloudObjects(); len(cloud) != 2 {
		t.Errorf("while PR 2's apply is held, the cloud holds %v, want web and PR 3's b", cloud)
	}
	g.open()
	h.settle()
	if n := h.metrics()[applied]; n != 2 {
		for _, n := range []int{2, 3} {
			for _, c := range h.botComments(n) {
				t.Logf("#%d: %s", n, c.Body)
			}
		}
		t.Fatalf("applied %v, want 2", n)
	}
	if cloud := h.cloudObjects(); len(cloud) != 3 {
		t.Errorf("cloud holds %v, want Vms web, a and b", cloud)
	}
}

// TestOverlappingPRsNameTheObjectsAndThePR (issue 41): with the default
// settings, PR 3's apply, needing Vm "a" while PR 2's apply holds
// it, is refused past the lock timeout with a reply naming `a` and pull
// request #2 — before PR 2's apply ends, not queued behind it — and
// changes nothing.
func TestOverlappingPRsNameTheObjectsAndThePR(t *testing.T) {
	g := newGate("a")
	h, _, _ := s3Project(t, harnessOpts{sim: g.wrap, lockTimeout: 300 * time.Millisecond}, "", true, configV1+vmA, configV1+vmA+vmB)
	t.Cleanup(g.open)
	openPRs(t, h)
	h.deliver("issue_comment", commentOn(t, 2, "writer", "User", "/kyku apply", 1101))
	waitFor(t, "PR 2's apply never created a", g.entered)
	h.deliver("issue_comment", commentOn(t, 3, "writer", "User", "/kyku apply", 1102))
	var reply string
	eventually(t, "PR 3 got no reply while PR 2's apply was held", func() bool {
		for _, c := range h.botComments(3) {
			if strings.Contains(c.Body, "/kyku apply") || strings.Contains(c.Body, "pull request #2") {
				reply = c.Body
			}
		}
		return strings.Contains(reply, "pull request #2")
	})
	if !strings.Contains(reply, "`a`") {
		t.Errorf("the reply does not name `a`:\n%s", reply)
	}
	g.open()
	h.settle()
	if cloud := h.cloudObjects(); len(cloud) != 2 {
		t.Errorf("cloud holds %v, want web and PR 2's a", cloud)
	}
	if n := h.metrics()[applied]; n != 1 {
		t.Errorf("applied %v, want PR 2's alone", n)
	}
}

// TestStateWithoutLeasesTakesTurns (issue 41): with the default settings
// and leases: false (the whole-state lock), each apply finds the state
// without leases and is requeued behind the environment's jobs: PR 3's
// waits in the queue, holding no worker, while PR 2's holds the state —
// not on the lock, whose timeout here is 1ms, so one that waited on it
// would be refused — then is judged as it always was one after the other:
// its branch is behind, its saved plan stale (not a lock it could not
// take).
func TestStateWithoutLeasesTakesTurns(t *testing.T) {
	g := newGate("a")
	h, _, _ := s3Project(t, harnessOpts{sim: g.wrap, lockTimeout: time.Millisecond}, "", false, configV1+vmA, configV1+vmB)
	t.Cleanup(g.open)
	openPRs(t, h)
	h.deliver("issue_comment", commentOn(t, 2, "writer", "User", "/kyku apply", 1201))
	waitFor(t, "PR 2's apply never created a", g.entered)
	h.deliver("issue_comment", commentOn(t, 3, "writer", "User", "/kyku apply", 1202))
	eventually(t, "PR 3's apply was not requeued behind PR 2's, holding no worker", func() bool {
		m := h.metrics()
		return m[requeuedApply] == 2 && m["kyku_bot_jobs_running"] == 1 && m["kyku_bot_queue_depth"] == 1
	})
	if strings.Contains(h.logs(), "waiting for the turn on the state") {
		t.Errorf("a job waited for its turn in a worker")
	}
	g.open()
	h.settle()
	if n := h.metrics()[applied]; n != 1 {
		t.Fatalf("applied %v, want PR 2's", n)
	}
	if c := h.botComments(3); len(c) == 0 || !strings.Contains(c[len(c)-1].Body, "is a stale plan") || strings.Contains(c[len(c)-1].Body, "lock") {
		t.Fatalf("PR 3's reply is not about its stale plan alone: %+v", c)
	}
	if cloud := h.cloudObjects(); len(cloud) != 2 {
		t.Errorf("cloud holds %v, want Vms web and a", cloud)
	}
}

// requeuedApply counts the apply jobs requeued behind their environment.
const requeuedApply = `kyku_bot_jobs_requeued_total{kind="apply"}`

// TestConcurrentAppliesFalseKeepsJobsOfATargetSerial: with
// concurrent-applies: false, PR 3's apply stays queued while PR 2's runs
// (even on a leased state), and runs after it.
func TestConcurrentAppliesFalseKeepsJobsOfATargetSerial(t *testing.T) {
	g := newGate("a")
	h, _, _ := s3Project(t, harnessOpts{sim: g.wrap}, "concurrent-applies: false\n", true, configV1+vmA, configV1+vmB)
	t.Cleanup(g.open)
	openPRs(t, h)
	h.deliver("issue_comment", commentOn(t, 2, "writer", "User", "/kyku apply", 1301))
	waitFor(t, "PR 2's apply never created a", g.entered)
	h.deliver("issue_comment", commentOn(t, 3, "writer", "User", "/kyku apply", 1302))
	eventually(t, "PR 3's apply was not left queued behind PR 2's", func() bool {
		m := h.metrics()
		return m[`kyku_bot_jobs_total{kind="comment",outcome="routed"}`] == 2 && m["kyku_bot_queue_depth"] == 1 && m["kyku_bot_jobs_running"] == 1
	})
	if n := h.metrics()[applied]; n != 0 {
		t.Errorf("applied %v while PR 2's apply is held, want 0", n)
	}
	g.open()
	h.settle()
	if n := h.metrics()[applied]; n != 2 {
		t.Fatalf("applied %v, want 2", n)
	}
	if n := g.overlapped(); n != 1 {
		t.Errorf("%d creates ran at once, want 1", n)
	}
}
