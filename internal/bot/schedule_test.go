package bot_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kyku/action/internal/bot"
	"github.com/kyku/action/internal/bot/jobs/jobstest"
	"github.com/kyku/action/internal/review"
	"github.com/kyku/action/internal/statemgr"
)

// fakeClock is the replicas' one clock: After fires when the test advances
// it past the wait's deadline.
type fakeClock struct {
	mu      sync.Mutex
	now     time.Time
	waiters []fakeWaiter
	calls   atomic.Int64 // After calls, to tell when the loops are parked
}

type fakeWaiter struct {
	at time.Time
	ch chan time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.calls.Add(1)
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	if d <= 0 {
		ch <- c.now
		return ch
	}
	c.waiters = append(c.waiters, fakeWaiter{at: c.now.Add(d), ch: ch})
	return ch
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	kept := c.waiters[:0]
	for _, w := range c.waiters {
		if !w.at.After(c.now) {
			w.ch <- c.now
			continue
		}
		kept = append(kept, w)
	}
	c.waiters = kept
}

// busyStore counts the calls in flight, so the test can tell when the
// replicas are done with a tick; cut makes every call fail (the replica
// died, or lost its network).
type busyStore struct {
	jobstest.Severable
	inFlight *atomic.Int64
}

func (s *busyStore) enter() func() {
	s.inFlight.Add(1)
	return func() { s.inFlight.Add(-1) }
}

func (s *busyStore) CreateObject(ctx context.Context, key string, data []byte) (statemgr.Version, error) {
	defer s.enter()()
	return s.Severable.CreateObject(ctx, key, data)
}

func (s *busyStore) ReadObject(ctx context.Context, key string) ([]byte, statemgr.Version, error) {
	defer s.enter()()
	return s.Severable.ReadObject(ctx, key)
}

func (s *busyStore) ReplaceObject(ctx context.Context, key string, data []byte, v statemgr.Version) (statemgr.Version, error) {
	defer s.enter()()
	return s.Severable.ReplaceObject(ctx, key, data, v)
}

func (s *busyStore) DeleteObject(ctx context.Context, key string, v statemgr.Version) error {
	defer s.enter()()
	return s.Severable.DeleteObject(ctx, key, v)
}

func (s *busyStore) ListObjects(ctx context.Context, prefix string) ([]string, error) {
	defer s.enter()()
	return s.Severable.ListObjects(ctx, prefix)
}

// driftLog records each drift check with the replica and the fake time.
type driftLog struct {
	mu     sync.Mutex
	clock  *fakeClock
	checks []driftCheck
}

type driftCheck struct {
	replica, target string
	at              time.Time
}

func (l *driftLog) rule(replica string) bot.Rules {
	return bot.Rules{Drift: func(_ context.Context, _ review.Deps, req review.DriftRequest) (*review.DriftOutcome, error) {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.checks = append(l.checks, driftCheck{replica: replica, target: req.Settings.Project + "/" + req.Settings.Environment, at: l.clock.Now()})
		return &review.DriftOutcome{}, nil
	}}
}

// TestOneDriftScheduleAcrossReplicas: three replicas on one store (the
// real S3 server) and one clock, none told to stay out of the schedule.
// One leads at a time; each environment is checked once per interval, not
// once per replica. When the leader dies (its store out of reach), another
// replica leads within one lease, and the schedule goes on from the
// record: no round skipped, none run twice.
func TestOneDriftScheduleAcrossReplicas(t *testing.T) {
	const (
		interval = 10 * time.Minute
		lease    = 30 * time.Second
		step     = 10 * time.Second
	)
	_, open := botStore(t)
	clk := &fakeClock{now: time.Date(2025, 6, 2, 8, 0, 0, 0, time.UTC)}
	log := &driftLog{clock: clk}
	var inFlight atomic.Int64
	names := []string{"r1", "r2", "r3"}
	stores := map[string]*busyStore{}
	bots := map[string]*harness{}
	for i, name := range names {
		stores[name] = &busyStore{Severable: jobstest.Severable{Objects: open()}, inFlight: &inFlight}
		o := harnessOpts{
			store: stores[name], replica: name, lease: lease, driftInterval: interval, rules: log.rule(name),
			now: clk.Now, after: clk.After, jitter: func(time.Duration) time.Duration { return 0 },
		}
		if i == 0 {
			bots[name] = newHarness(t, o)
			bots[name].gh.SetFile(repoName, defaultBranch, ".kyku/config.yaml", []byte(twoEnvSettings))
			continue
		}
		bots[name] = bots[names[0]].replica(o)
	}
	gh := bots[names[0]].gh
	// quiet waits until the replicas are done with the last tick: no store
	// call or GitHub request in flight or started, no job queued or
	// running, for a while.
	quiet := func() {
		t.Helper()
		sig := func() string {
			busy := fmt.Sprint(inFlight.Load())
			for _, name := range names {
				h := bots[name].health()
				busy += " " + h["queued"] + " " + h["running"]
			}
			return fmt.Sprint(busy, clk.calls.Load(), len(gh.Requests()))
		}
		deadline := time.Now().Add(20 * time.Second)
		last, since := sig(), time.Now()
		for time.Since(since) < 15*time.Millisecond {
			if time.Now().After(deadline) {
				t.Fatal("the replicas never settled")
			}
			time.Sleep(3 * time.Millisecond)
			if s := sig(); s != last || inFlight.Load() != 0 {
				last, since = s, time.Now()
			}
		}
	}
	leader := func() string {
		t.Helper()
		var out []string
		for _, name := range names {
			if stores[name].IsCut() {
				continue
			}
			if bots[name].health()["leading"] == "yes" {
				out = append(out, name)
			}
		}
		if len(out) > 1 {
			t.Fatalf("replicas %v all lead the drift schedule", out)
		}
		if len(out) == 0 {
			return ""
		}
		return out[0]
	}
	start := clk.Now()
	quiet()
	run := func(until time.Duration) {
		t.Helper()
		for clk.Now().Sub(start) < until {
			clk.Advance(step)
			quiet()
			leader()
		}
	}

	run(25 * time.Minute) // rounds at 0, 10 and 20 minutes
	first := leader()
	if first == "" {
		t.Fatal("no replica leads the drift schedule")
	}
	checks := func() map[string][]time.Duration {
		log.mu.Lock()
		defer log.mu.Unlock()
		out := map[string][]time.Duration{}
		for _, c := range log.checks {
			out[c.target] = append(out[c.target], c.at.Sub(start))
		}
		return out
	}
	for target, at := range checks() {
		if len(at) != 3 {
			t.Errorf("%s checked at %v in 25 minutes, want 3 times (once per 10-minute interval)", target, at)
		}
	}
	if len(checks()) != 2 {
		t.Fatalf("checked %v, want both environments", checks())
	}

	// The leader dies.
	stores[first].Cut()
	died := clk.Now()
	var next string
	for next == "" {
		clk.Advance(step)
		quiet()
		next = leader()
		if clk.Now().Sub(died) > lease+2*step {
			t.Fatalf("no replica took over the drift schedule within a lease (%v) of its leader's death", lease)
		}
	}
	if next == first {
		t.Fatalf("the dead replica %s still leads", first)
	}
	run(45 * time.Minute) // rounds at 30 and 40 minutes, by the new leader
	for target, at := range checks() {
		if len(at) != 5 {
			t.Errorf("%s checked at %v in 45 minutes, want 5 times", target, at)
		}
		for i := 1; i < len(at); i++ {
			if at[i]-at[i-1] < interval-step { // a check runs within a tick of its round
				t.Errorf("%s checked twice within one interval: %v", target, at)
			}
		}
	}
	log.mu.Lock()
	for _, c := range log.checks {
		if c.at.After(died) && c.replica == first {
			t.Errorf("the dead replica %s checked %s at %v", first, c.target, c.at.Sub(start))
		}
	}
	log.mu.Unlock()
	// Nothing left behind in the store: every offered check was taken.
	if keys := jobKeys(t, open()); len(keys) != 0 {
		t.Errorf("job records left: %v", keys)
	}
}

// health reads /healthz into name → value.
func (h *harness) health() map[string]string {
	h.t.Helper()
	resp, err := http.Get(h.http.URL + "/healthz")
	if err != nil {
		h.t.Fatal(err)
	}
	out := map[string]string{}
	for _, line := range strings.Split(readAll(h.t, resp), "\n") {
		if k, v, ok := strings.Cut(line, " "); ok {
			out[k] = v
		}
	}
	return out
}
