package runner_test

import (
	"context"
	"encoding/hex"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/bot/jobs"
	"github.com/kyku/action/internal/bot/jobs/jobstest"
	"github.com/kyku/action/internal/bot/queue"
	"github.com/kyku/action/internal/bot/runner"
)

var secret = []byte("webhook-s3cr3t")

const lease = time.Minute

// replica is one runner on a shared store, running in the test's bubble.
type replica struct {
	t       *testing.T
	name    string
	store   *jobstest.Severable
	r       *runner.Runner
	run     chan error
	mu      sync.Mutex
	ran     []string // the record IDs whose jobs ran here
	resumed []string // results counted
}

// work is what a record's job does: by default nothing; a test may make
// it block.
type work struct {
	mu    sync.Mutex
	block map[string]chan struct{} // record ID -> closed to let the job end
}

func (w *work) blockOn(id string) chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.block == nil {
		w.block = map[string]chan struct{}{}
	}
	ch := make(chan struct{})
	w.block[id] = ch
	return ch
}

func (w *work) gate(id string) chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.block[id]
}

// start runs a replica of name on store with workers workers.
func start(t *testing.T, name string, store jobs.Objects, workers int, w *work) *replica {
	rp := &replica{t: t, name: name, store: &jobstest.Severable{Objects: store}, run: make(chan error, 1)}
	rp.r = runner.New(runner.Options{
		Queue:   queue.Options{Workers: workers},
		Store:   jobs.New(rp.store, jobs.Options{Secret: secret, Holder: name, Lease: lease}),
		Secret:  secret,
		Replica: name,
		Resume:  func(rec jobs.Record) (queue.Job, string, error) { return rp.job(rec.ID, w), "", nil },
		Resumed: func(result string) {
			rp.mu.Lock()
			defer rp.mu.Unlock()
			rp.resumed = append(rp.resumed, result)
		},
	})
	go func() { rp.run <- rp.r.Run(t.Context()) }()
	synctest.Wait()
	return rp
}

// job is the routing job of record id: it waits while the test blocks it
// (or its context ends), then records that it ran here.
func (rp *replica) job(id string, w *work) queue.Job {
	return queue.Job{Kind: "test", Key: id, Run: func(ctx context.Context) (string, error) {
		if ch := w.gate(id); ch != nil {
			select {
			case <-ch:
			case <-ctx.Done():
				return "interrupted", ctx.Err()
			}
		}
		rp.mu.Lock()
		defer rp.mu.Unlock()
		rp.ran = append(rp.ran, id)
		return "", nil
	}}
}

// accept records and queues a delivery's job, as the intake does.
func (rp *replica) accept(id string, w *work) {
	rp.t.Helper()
	body := []byte(`{"delivery":"` + id + `"}`)
	rec := jobs.Record{ID: id, Event: "push", Body: body, MAC: hex.EncodeToString(jobs.MAC(secret, body)), Accepted: time.Now(), AcceptedBy: rp.name}
	if err := rp.r.Accept(rp.t.Context(), rec, rp.job(id, w)); err != nil {
		rp.t.Fatalf("accept %s: %v", id, err)
	}
}

func (rp *replica) got() (ran, resumed []string) {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	return append([]string(nil), rp.ran...), append([]string(nil), rp.resumed...)
}

// shutdown shuts the replica down; Run must return nil.
func (rp *replica) shutdown(ctx context.Context) error {
	err := rp.r.Shutdown(ctx)
	if rerr := <-rp.run; rerr != nil {
		rp.t.Errorf("%s: Run = %v, want nil after Shutdown", rp.name, rerr)
	}
	return err
}

func records(t *testing.T, store jobs.Objects) []string {
	t.Helper()
	keys, err := store.ListObjects(t.Context(), jobs.RecordPrefix)
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

// The runner alone, on simulated time, against a store in memory: every
// test runs in a synctest bubble, which fails it if a goroutine is left
// behind once the runners are shut down.

// TestAcceptedJobRunsAndItsRecordGoes: a job accepted is recorded while it
// runs, leased here — renewed, so that another replica never takes it —
// and its record is removed once it ended.
func TestAcceptedJobRunsAndItsRecordGoes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := jobstest.NewMemory()
		w := &work{}
		release := w.blockOn("d-1")
		a := start(t, "a", mem, 2, w)
		b := start(t, "b", mem, 2, w)
		a.accept("d-1", w)
		synctest.Wait()
		if got := records(t, mem); len(got) != 1 || a.r.Leased() != 1 || a.r.Running() != 1 {
			t.Errorf("while it runs: records %v, leased %d, running %d; want one of each", got, a.r.Leased(), a.r.Running())
		}
		time.Sleep(3 * lease) // leases renewed meanwhile
		synctest.Wait()
		if _, resumed := b.got(); len(resumed) != 0 || b.r.Leased() != 0 {
			t.Errorf("b took over %v (leased %d) while a renewed its lease", resumed, b.r.Leased())
		}
		close(release)
		synctest.Wait()
		if got := records(t, mem); len(got) != 0 || a.r.Leased() != 0 {
			t.Errorf("after it ran: records %v, leased %d; want none", got, a.r.Leased())
		}
		if err := errors.Join(a.shutdown(t.Context()), b.shutdown(t.Context())); err != nil {
			t.Fatal(err)
		}
		if ran, resumed := a.got(); !cmp.Equal(ran, []string{"d-1"}) || len(resumed) != 0 {
			t.Errorf("ran %v, resumed %v; want d-1 run once, here", ran, resumed)
		}
	})
}

// TestAJobOutlivesItsReplica: replica a dies (its store out of reach)
// while its job runs; b takes the job over once a's lease has expired, not
// before, and runs it again.
func TestAJobOutlivesItsReplica(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := jobstest.NewMemory()
		w := &work{}
		stuck := w.blockOn("d-1")
		a := start(t, "a", mem, 1, w)
		a.accept("d-1", w)
		synctest.Wait()
		a.store.Cut()
		died := time.Now()
		b := start(t, "b", mem, 1, &work{})
		var took time.Duration
		for {
			time.Sleep(time.Second)
			synctest.Wait()
			if ran, _ := b.got(); len(ran) == 1 {
				took = time.Since(died)
				break
			}
			if time.Since(died) > 2*lease {
				t.Fatal("b never took the job over")
			}
		}
		if took < lease*2/3 {
			t.Errorf("b took the job over %v after a died, before a's lease could expire (%v)", took, lease)
		}
		if _, resumed := b.got(); !cmp.Equal(resumed, []string{"taken_over"}) {
			t.Errorf("b counted %v, want one job taken over", resumed)
		}
		close(stuck)
		synctest.Wait()
		if err := errors.Join(a.shutdown(t.Context()), b.shutdown(t.Context())); err != nil {
			t.Fatal(err)
		}
		if got := records(t, mem); len(got) != 0 {
			t.Errorf("records left: %v", got)
		}
	})
}

// TestShutdownGivesTheLeasesBack: a replica shut down with a job running
// and one waiting gives both leases back when its drain deadline passes,
// so another replica takes them over at once rather than after a lease.
func TestShutdownGivesTheLeasesBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := jobstest.NewMemory()
		w := &work{}
		w.blockOn("d-1")
		a := start(t, "a", mem, 1, w)
		a.accept("d-1", w)
		a.accept("d-2", w)
		synctest.Wait()
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		if err := a.shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Shutdown = %v, want its deadline", err)
		}
		if got := records(t, mem); len(got) != 2 {
			t.Fatalf("records after the shutdown: %v, want both jobs left for another replica", got)
		}
		stopped := time.Now()
		b := start(t, "b", mem, 2, &work{})
		synctest.Wait()
		if ran, _ := b.got(); len(ran) != 2 || time.Since(stopped) != 0 {
			t.Errorf("b ran %v %v after a stopped, want both at once", ran, time.Since(stopped))
		}
		if err := b.shutdown(t.Context()); err != nil {
			t.Fatal(err)
		}
	})
}

// TestUnsignedRecordIsNotRun: a record whose body does not carry the
// webhook secret's MAC (planted in the store by someone without the
// secret) is refused and removed, never run.
func TestUnsignedRecordIsNotRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := jobstest.NewMemory()
		planter := jobs.New(mem, jobs.Options{Secret: secret, Holder: "planter", Lease: lease})
		body := []byte(`{"delivery":"forged"}`)
		if _, err := planter.Offer(t.Context(), jobs.Record{ID: "forged", Event: "push", Body: body, MAC: hex.EncodeToString(jobs.MAC([]byte("guess"), body))}); err != nil {
			t.Fatal(err)
		}
		a := start(t, "a", mem, 1, &work{})
		synctest.Wait()
		if ran, resumed := a.got(); len(ran) != 0 || !cmp.Equal(resumed, []string{"refused"}) {
			t.Errorf("ran %v, counted %v; want nothing run, one refused", ran, resumed)
		}
		if got := records(t, mem); len(got) != 0 {
			t.Errorf("the refused record stayed: %v", got)
		}
		if err := a.shutdown(t.Context()); err != nil {
			t.Fatal(err)
		}
	})
}

// TestRunsContextEnding: Run's context ending stops the runner at once:
// the running job is cancelled and the waiting one dropped, both leases
// given back, and Run says why.
func TestRunsContextEnding(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := jobstest.NewMemory()
		w := &work{}
		w.blockOn("d-1")
		r := runner.New(runner.Options{
			Queue: queue.Options{Workers: 1},
			Store: jobs.New(mem, jobs.Options{Secret: secret, Holder: "a", Lease: lease}), Secret: secret,
			Resume: func(jobs.Record) (queue.Job, string, error) { return queue.Job{}, "nothing", nil },
		})
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- r.Run(ctx) }()
		rp := &replica{t: t, r: r}
		rp.accept("d-1", w)
		rp.accept("d-2", w)
		synctest.Wait()
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("Run = %v, want its context's error", err)
		}
		if r.Leased() != 0 {
			t.Errorf("%d leases still held", r.Leased())
		}
		// Given back: another replica takes the jobs at once.
		b := start(t, "b", mem, 2, &work{})
		if ran, _ := b.got(); len(ran) != 2 {
			t.Errorf("b ran %v, want both jobs given back", ran)
		}
		if err := b.shutdown(t.Context()); err != nil {
			t.Fatal(err)
		}
	})
}
