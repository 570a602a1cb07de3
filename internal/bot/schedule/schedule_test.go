package schedule_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/bot/jobs"
	"github.com/kyku/action/internal/bot/jobs/jobstest"
	"github.com/kyku/action/internal/bot/queue"
	"github.com/kyku/action/internal/bot/schedule"
	"github.com/kyku/action/internal/github"
)

var secret = []byte("webhook-s3cr3t")

// lister is GitHub's listing of the App's installations and their
// repositories: acme/infra and an archived repository on installation 1,
// beta/dns on installation 2 (unless down: then listing it fails).
type lister struct {
	listings atomic.Int64
	down     atomic.Bool
}

func (l *lister) Installations(context.Context) ([]github.Installation, error) {
	l.listings.Add(1)
	return []github.Installation{{ID: 1, Account: "acme"}, {ID: 2, Account: "beta"}}, nil
}

func (l *lister) Repos(_ context.Context, installation int64) ([]github.RepoRef, error) {
	switch {
	case installation == 1:
		return []github.RepoRef{
			{ID: 11, Owner: "acme", Name: "infra", DefaultBranch: "main"},
			{ID: 12, Owner: "acme", Name: "old", DefaultBranch: "main", Archived: true},
			{ID: 13, Owner: "acme", Name: "empty"}, // no default branch: nothing to read
		}, nil
	case l.down.Load():
		return nil, errors.New("installation 2: 502 Bad Gateway")
	}
	return []github.RepoRef{{ID: 21, Owner: "beta", Name: "dns", DefaultBranch: "trunk"}}, nil
}

// checks records the checks queued (without a store): repository and when.
type checks struct {
	mu     sync.Mutex
	start  time.Time
	queued []string
	full   string // Submit answers queue.ErrFull for this repository
}

func (c *checks) check(r schedule.Repo) queue.Job {
	return queue.Job{Kind: "drift-schedule", Key: r.Owner + "/" + r.Name}
}

func (c *checks) submit(j queue.Job) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if j.Key == c.full {
		return queue.ErrFull
	}
	c.queued = append(c.queued, fmt.Sprintf("%v %s", time.Since(c.start), j.Key))
	return nil
}

func (c *checks) got() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.queued)
}

// results counts rounds by result.
type results struct {
	mu sync.Mutex
	n  map[string]int
}

func (r *results) add(result string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.n == nil {
		r.n = map[string]int{}
	}
	r.n[result]++
}

func (r *results) get() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]int{}
	for k, v := range r.n {
		out[k] = v
	}
	return out
}

// half is the jitter of these tests: half of the most it may be.
func half(n time.Duration) time.Duration { return n / 2 }

// running runs s in the test's bubble until stop is called, which shuts
// it down and wants Run to return nil.
func running(t *testing.T, s *schedule.Scheduler) (stop func()) {
	done := make(chan error, 1)
	go func() { done <- s.Run(t.Context()) }()
	synctest.Wait()
	return func() {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Fatalf("Shutdown: %v", err)
		}
		if err := <-done; err != nil {
			t.Errorf("Run = %v, want nil after Shutdown", err)
		}
	}
}

// The scheduler alone, on simulated time: every test runs in a synctest
// bubble, which fails it if a goroutine is left behind once the
// scheduler is shut down.

// TestScheduleWithoutAStore: the first round comes at a random time within
// one interval, then every interval plus up to a tenth of it; each queues a
// check of every repository with a default branch that is not archived,
// on its own; Shutdown stops the schedule, and no round comes after it.
func TestScheduleWithoutAStore(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l, c, rounds := &lister{}, &checks{start: time.Now()}, &results{}
		s := schedule.New(schedule.Options{
			Interval: time.Hour, Lister: l, Check: c.check, Submit: c.submit, Rounds: rounds.add, Jitter: half,
		})
		stop := running(t, s)
		time.Sleep(3 * time.Hour)
		stop()
		time.Sleep(24 * time.Hour)
		synctest.Wait()
		want := []string{
			"30m0s acme/infra", "30m0s beta/dns", // half an interval
			"1h33m0s acme/infra", "1h33m0s beta/dns", // then an interval and half a tenth of it
			"2h36m0s acme/infra", "2h36m0s beta/dns",
		}
		if diff := cmp.Diff(want, c.got()); diff != "" {
			t.Errorf("checks queued (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(map[string]int{"ok": 3}, rounds.get()); diff != "" {
			t.Errorf("rounds (-want +got):\n%s", diff)
		}
	})
}

// TestRoundLeavesWhatItCannotQueue: a full queue leaves a repository for
// the next round, an installation that cannot be listed does not stop the
// others; the round says so, as partial.
func TestRoundLeavesWhatItCannotQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l, c, rounds := &lister{}, &checks{start: time.Now(), full: "acme/infra"}, &results{}
		s := schedule.New(schedule.Options{Interval: time.Hour, Lister: l, Check: c.check, Submit: c.submit, Rounds: rounds.add})
		err := s.Round(t.Context())
		if err == nil || !strings.Contains(err.Error(), "queue full: 1 repositories left for the next round") {
			t.Errorf("Round = %v, want the repository left for the next round", err)
		}
		l.down.Store(true)
		c.full = ""
		if err := s.Round(t.Context()); err == nil || !strings.Contains(err.Error(), "502 Bad Gateway") {
			t.Errorf("Round = %v, want installation 2's error", err)
		}
		if diff := cmp.Diff([]string{"0s beta/dns", "0s acme/infra"}, c.got()); diff != "" {
			t.Errorf("checks queued (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(map[string]int{"partial": 2}, rounds.get()); diff != "" {
			t.Errorf("rounds (-want +got):\n%s", diff)
		}
	})
}

// TestNoIntervalNoRound: an interval of 0 never starts a round, nor waits
// for one; Shutdown stops a schedule waiting for its first round at once,
// before it listed anything.
func TestNoIntervalNoRound(t *testing.T) {
	for _, interval := range []time.Duration{0, time.Hour} {
		t.Run(interval.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				l, c := &lister{}, &checks{start: time.Now()}
				var waits atomic.Int64
				s := schedule.New(schedule.Options{
					Interval: interval, Lister: l, Check: c.check, Submit: c.submit, Jitter: half,
					After: func(d time.Duration) <-chan time.Time { waits.Add(1); return time.After(d) },
				})
				stop := running(t, s)
				time.Sleep(10 * time.Minute)
				stopped := time.Now()
				stop()
				if d := time.Since(stopped); d != 0 {
					t.Errorf("Shutdown took %v, want at once", d)
				}
				if interval == 0 && waits.Load() != 0 {
					t.Errorf("interval 0: %d waits, want none", waits.Load())
				}
				if n := l.listings.Load(); n != 0 {
					t.Errorf("%d installation listings, want none", n)
				}
			})
		})
	}
}

// leader is one replica's scheduler on the shared store.
type leader struct {
	name    string
	store   *jobstest.Severable
	s       *schedule.Scheduler
	stop    func()
	leading atomic.Bool
}

// TestOneScheduleAcrossReplicas: three replicas on one store and one clock,
// none told to stay out of the schedule. One leads at a time; each round
// offers each repository once, every interval, not once per replica. When
// the leader dies (its store out of reach), another replica leads within
// one lease, and the schedule goes on from the record: no round skipped,
// none offered twice.
func TestOneScheduleAcrossReplicas(t *testing.T) {
	const (
		interval = 10 * time.Minute
		lease    = 30 * time.Second
		step     = 10 * time.Second
	)
	synctest.Test(t, func(t *testing.T) {
		mem := jobstest.NewMemory()
		start := time.Now()
		var replicas []*leader
		for _, name := range []string{"r1", "r2", "r3"} {
			r := &leader{name: name, store: &jobstest.Severable{Objects: mem}}
			r.s = schedule.New(schedule.Options{
				Interval: interval, Lister: &lister{},
				Store: r.store, Jobs: jobs.New(r.store, jobs.Options{Secret: secret, Holder: name, Lease: lease}),
				Secret: secret, Replica: name, Lease: lease, Leading: r.leading.Store,
				Jitter: func(time.Duration) time.Duration { return 0 },
			})
			r.stop = running(t, r.s)
			replicas = append(replicas, r)
		}
		// The offered checks, taken as the replicas' runners take them:
		// round (as minutes since the start) and repository ID.
		taker := jobs.New(mem, jobs.Options{Secret: secret, Holder: "taker", Lease: lease})
		offered := map[string][]string{} // repository ID -> rounds
		take := func() {
			taken, bad, err := taker.TakeOrphans(t.Context(), 100, func(string) bool { return false })
			if err != nil || len(bad) > 0 {
				t.Fatalf("take offered checks: %v %v", err, bad)
			}
			for _, j := range taken {
				rec := j.Record()
				r, err := schedule.DecodeOffer(rec.Body)
				if err != nil || rec.Event != schedule.EventOffered || !rec.Signed(secret) {
					t.Fatalf("offered record %+v: %v", rec, err)
				}
				round, err := time.Parse("20060102T150405Z", r.Round)
				if err != nil {
					t.Fatal(err)
				}
				id := fmt.Sprint(r.ID)
				offered[id] = append(offered[id], round.Sub(start).String())
				if err := j.Finish(t.Context()); err != nil {
					t.Fatal(err)
				}
			}
		}
		leaderNow := func() string {
			t.Helper()
			var names []string
			for _, r := range replicas {
				if r.leading.Load() && !r.store.IsCut() {
					names = append(names, r.name)
				}
			}
			if len(names) > 1 {
				t.Fatalf("replicas %v all lead the drift schedule", names)
			}
			if len(names) == 0 {
				return ""
			}
			return names[0]
		}
		run := func(until time.Duration) {
			for time.Since(start) < until {
				time.Sleep(step)
				synctest.Wait()
				take()
				leaderNow()
			}
		}

		run(25 * time.Minute) // rounds at 0, 10 and 20 minutes
		first := leaderNow()
		if first == "" {
			t.Fatal("no replica leads the drift schedule")
		}
		want := map[string][]string{"11": {"0s", "10m0s", "20m0s"}, "21": {"0s", "10m0s", "20m0s"}}
		if diff := cmp.Diff(want, offered); diff != "" {
			t.Errorf("offered in 25 minutes (-want +got):\n%s", diff)
		}

		// The leader dies.
		var dead *leader
		for _, r := range replicas {
			if r.name == first {
				dead = r
			}
		}
		dead.store.Cut()
		died := time.Now()
		next := ""
		for next == "" {
			time.Sleep(step)
			synctest.Wait()
			take()
			next = leaderNow()
			if time.Since(died) > lease+2*step {
				t.Fatalf("no replica took over the drift schedule within a lease (%v) of its leader's death", lease)
			}
		}
		if next == first {
			t.Fatalf("the dead replica %s still leads", first)
		}
		run(45 * time.Minute) // rounds at 30 and 40 minutes, by the new leader
		for _, id := range []string{"11", "21"} {
			want[id] = append(want[id], "30m0s", "40m0s")
		}
		if diff := cmp.Diff(want, offered); diff != "" {
			t.Errorf("offered in 45 minutes (-want +got):\n%s", diff)
		}
		for _, r := range replicas {
			r.stop()
		}
		// Nothing left behind in the store: every offered check was taken.
		if keys, err := mem.ListObjects(t.Context(), jobs.RecordPrefix); err != nil || len(keys) != 0 {
			t.Errorf("job records left: %v %v", keys, err)
		}
	})
}
