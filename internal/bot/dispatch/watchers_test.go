package dispatch_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/bot/dispatch"
	"github.com/kyku/action/internal/bot/jobs"
	"github.com/kyku/action/internal/github"
)

const (
	self = "kyku[bot]"
	head = "a1b2c3d4e5f6a7b8c9d0a1b2c3d4e5f6a7b8c9d0"
)

// fakeRuns is GitHub's Actions and Checks APIs for one repository, in
// memory: the workflow's runs, and every update of the check runs.
type fakeRuns struct {
	mu      sync.Mutex
	runs    []github.WorkflowRun
	updates []github.CheckRun
	looks   int
}

func (f *fakeRuns) WorkflowRuns(_ context.Context, _ string, _ github.RunQuery) ([]github.WorkflowRun, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.looks++
	return append([]github.WorkflowRun(nil), f.runs...), nil
}

func (f *fakeRuns) WorkflowRun(_ context.Context, id int64) (github.WorkflowRun, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.looks++
	for _, r := range f.runs {
		if r.ID == id {
			return r, nil
		}
	}
	return github.WorkflowRun{}, github.ErrNotFound
}

func (f *fakeRuns) WorkflowJobs(context.Context, int64) ([]github.WorkflowJob, error) {
	return nil, nil
}

func (f *fakeRuns) UpdateCheck(_ context.Context, _ int64, c github.CheckRun) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.updates = append(f.updates, c)
	return nil
}

// set adds or replaces run (by ID).
func (f *fakeRuns) set(run github.WorkflowRun) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, r := range f.runs {
		if r.ID == run.ID {
			f.runs[i] = run
			return
		}
	}
	f.runs = append(f.runs, run)
}

// shown is what the check run showed, update by update: status and
// conclusion.
func (f *fakeRuns) shown() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, c := range f.updates {
		s := c.Status.String()
		if c.Conclusion != "" {
			s += " " + c.Conclusion.String()
		}
		out = append(out, s)
	}
	return out
}

func (f *fakeRuns) lookCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.looks
}

// fakeJobs is the job runner: one durable job whose lease the test can
// lose; it records the parts released and the progress recorded.
type fakeJobs struct {
	durable bool
	lost    context.Context
	lose    context.CancelFunc

	mu       sync.Mutex
	released []string // step, "interrupted" or "ended"
	recorded int
}

func newFakeJobs(t *testing.T, durable bool) *fakeJobs {
	j := &fakeJobs{durable: durable}
	j.lost, j.lose = context.WithCancel(t.Context())
	return j
}

func (j *fakeJobs) Hold(_ context.Context, step string) (context.Context, func(bool)) {
	return j.lost, func(interrupted bool) {
		j.mu.Lock()
		defer j.mu.Unlock()
		how := "ended"
		if interrupted {
			how = "interrupted"
		}
		j.released = append(j.released, step+" "+how)
	}
}

func (j *fakeJobs) Record(context.Context, string, func(*jobs.Step)) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.recorded++
}

func (j *fakeJobs) Durable() bool { return j.durable }

func (j *fakeJobs) releases() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([]string(nil), j.released...)
}

// counted collects the results the watchers count.
type counted struct {
	mu      sync.Mutex
	results []string
}

func (c *counted) add(r string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.results = append(c.results, r)
}

func (c *counted) get() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.results...)
}

// world is one test's watchers, running, with their fakes.
type world struct {
	t      *testing.T
	ws     *dispatch.Watchers
	gh     *fakeRuns
	jobs   *fakeJobs
	ended  *counted
	run    chan error
	cancel context.CancelFunc
}

// start runs watchers (Poll 20s, StartTimeout 5m: the defaults) in the
// test's bubble.
func start(t *testing.T, durable bool) *world {
	w := &world{t: t, gh: &fakeRuns{}, jobs: newFakeJobs(t, durable), ended: &counted{}, run: make(chan error, 1)}
	w.ws = dispatch.New(dispatch.Options{Jobs: w.jobs, StoreSetting: "KYKU_BOT_STORE", Ended: w.ended.add})
	ctx, cancel := context.WithCancel(t.Context())
	w.cancel = cancel
	go func() { w.run <- w.ws.Run(ctx) }()
	return w
}

// watch starts following a dispatch made now.
func (w *world) watch(id string) *dispatch.Watch {
	wt := &dispatch.Watch{
		Repo: w.gh, Self: self, RepoName: "acme/infra", Target: "infra/prod", Check: "kyku plan (infra/prod)",
		CheckRun: 1, Step: "dispatch plan " + id,
		Dispatch: jobs.Dispatch{ID: id, Workflow: "kyku.yml", Ref: "refs/heads/main", HeadSHA: head, At: time.Now()},
	}
	w.ws.Start(w.t.Context(), wt)
	return wt
}

// shutdown stops the watchers; Run must return nil.
func (w *world) shutdown() {
	w.t.Helper()
	if err := w.ws.Shutdown(w.t.Context()); err != nil {
		w.t.Fatalf("Shutdown: %v", err)
	}
	if err := <-w.run; err != nil {
		w.t.Errorf("Run = %v, want nil after Shutdown", err)
	}
}

func ourRun(id string, status, conclusion string) github.WorkflowRun {
	return github.WorkflowRun{ID: 7, Number: 3, DisplayTitle: "kyku plan " + id, Event: "workflow_dispatch", HeadBranch: "main",
		HeadSHA: head, Actor: self, TriggeringActor: self, Status: status, Conclusion: conclusion}
}

// The watchers alone, on simulated time: every test runs in a synctest
// bubble, which fails it if a goroutine is left behind once the watchers
// are shut down.
func TestWatchers(t *testing.T) {
	for _, tc := range []struct {
		name         string
		durable      bool
		run          func(w *world)
		shown        []string
		ended        []string
		released     []string
		stillWatched int
	}{
		{
			name: "a run followed to its end",
			run: func(w *world) {
				w.watch("d-1")
				synctest.Wait()
				w.gh.set(ourRun("d-1", "in_progress", ""))
				time.Sleep(20 * time.Second) // one poll
				synctest.Wait()
				w.gh.set(ourRun("d-1", "completed", "failure"))
				time.Sleep(20 * time.Second)
				synctest.Wait()
			},
			shown:    []string{"in_progress", "completed failure"},
			ended:    []string{"failure"},
			released: []string{"dispatch plan d-1 ended"},
		},
		{
			name: "a run that never starts ends the check run after the start timeout",
			run: func(w *world) {
				start := time.Now()
				w.watch("d-1")
				time.Sleep(5*time.Minute - time.Second)
				synctest.Wait()
				if got := w.ended.get(); len(got) != 0 {
					w.t.Errorf("ended %v before the start timeout", got)
				}
				time.Sleep(20 * time.Second)
				synctest.Wait()
				if d := time.Since(start); len(w.ended.get()) != 1 {
					w.t.Errorf("not ended %v after the dispatch", d)
				}
			},
			shown:    []string{"completed failure"},
			ended:    []string{"not_started"},
			released: []string{"dispatch plan d-1 ended"},
		},
		{
			name: "a nudge looks at once, not at the next poll",
			run: func(w *world) {
				w.watch("d-1")
				synctest.Wait()
				w.gh.set(ourRun("d-1", "completed", "success"))
				before := w.gh.lookCount()
				if n := w.ws.Nudge("kyku plan d-1"); n != 1 {
					w.t.Errorf("Nudge woke %d watches, want 1", n)
				}
				synctest.Wait() // no time passes
				if w.gh.lookCount() == before {
					w.t.Error("the nudged watch did not look")
				}
			},
			shown:    []string{"completed success"},
			ended:    []string{"success"},
			released: []string{"dispatch plan d-1 ended"},
		},
		{
			name: "shutdown without a store: the check run says nobody follows the run any more",
			run: func(w *world) {
				w.watch("d-1")
				synctest.Wait()
			},
			shown:        []string{"completed neutral"},
			ended:        []string{"abandoned"},
			released:     []string{"dispatch plan d-1 interrupted"},
			stillWatched: 1,
		},
		{
			name:    "shutdown with a store: the watch is left for the replica that takes the job over",
			durable: true,
			run: func(w *world) {
				w.watch("d-1")
				synctest.Wait()
			},
			released:     []string{"dispatch plan d-1 interrupted"},
			stillWatched: 1,
		},
		{
			name:    "a lost lease stops the watch",
			durable: true,
			run: func(w *world) {
				w.watch("d-1")
				synctest.Wait()
				w.jobs.lose()
				synctest.Wait()
				if got := w.ws.Count(); got != 0 {
					w.t.Errorf("%d watched after the lease was lost, want 0", got)
				}
			},
			released: []string{"dispatch plan d-1 interrupted"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := start(t, tc.durable)
				tc.run(w)
				if got := w.ws.Count(); got != tc.stillWatched {
					t.Errorf("%d runs watched before Shutdown, want %d", got, tc.stillWatched)
				}
				w.shutdown()
				if diff := cmp.Diff(tc.shown, w.gh.shown()); diff != "" {
					t.Errorf("check run updates (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(tc.ended, w.ended.get()); diff != "" {
					t.Errorf("results counted (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(tc.released, w.jobs.releases()); diff != "" {
					t.Errorf("parts of the job released (-want +got):\n%s", diff)
				}
				if got := w.ws.Count(); got != 0 {
					t.Errorf("%d runs watched after Shutdown", got)
				}
			})
		})
	}
}

// TestWatchersStopWhenRunsContextEnds: Run's context ending stops every
// watch, as Shutdown does, and Run says why; a watch started after is
// stopped at once.
func TestWatchersStopWhenRunsContextEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := start(t, true)
		w.watch("d-1")
		synctest.Wait()
		w.cancel()
		if err := <-w.run; !errors.Is(err, context.Canceled) {
			t.Errorf("Run = %v, want its context's error", err)
		}
		w.watch("d-2")
		if got := w.ws.Count(); got != 0 {
			t.Errorf("%d runs watched after Run stopped", got)
		}
		want := []string{"dispatch plan d-1 interrupted", "dispatch plan d-2 interrupted"}
		if diff := cmp.Diff(want, w.jobs.releases()); diff != "" {
			t.Errorf("parts released (-want +got):\n%s", diff)
		}
		if err := w.ws.Shutdown(t.Context()); err != nil {
			t.Error(err)
		}
	})
}
