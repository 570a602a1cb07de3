package bot_test

import (
	"context"
	"errors"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kyku/action/internal/bot"
	"github.com/kyku/action/internal/bot/jobs/jobstest"
	"github.com/kyku/action/internal/review"
)

func TestShutdownDrainsRunningJobAndRefusesNewWebhooks(t *testing.T) {
	started := make(chan struct{})
	release := make(chan struct{})
	rules := bot.Rules{Plan: func(ctx context.Context, d review.Deps, req review.PlanRequest) (*review.PlanOutcome, error) {
		close(started)
		<-release // an apply holding its lock, say
		return review.Plan(ctx, d, req)
	}}
	h := newHarness(t, harnessOpts{rules: rules})
	h.pr(2, headA)
	h.deliver("pull_request", prOpened(t, 2, headA))
	<-started

	done := make(chan error, 1)
	go func() { done <- h.bot.Shutdown(t.Context()) }()
	deadline := time.Now().Add(5 * time.Second)
	for {
		resp, err := http.Get(h.http.URL + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusServiceUnavailable {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("/readyz never answered 503 while draining")
		}
		time.Sleep(2 * time.Millisecond)
	}
	if code, _ := h.post("pull_request", "late", prOpened(t, 2, headA), ""); code != http.StatusServiceUnavailable {
		t.Errorf("webhook while draining: %d, want 503", code)
	}
	if resp, err := http.Get(h.http.URL + "/healthz"); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("/healthz while draining: %v %v, want 200 (alive)", resp, err)
	}
	select {
	case err := <-done:
		t.Fatalf("Shutdown returned (%v) while a job was running", err)
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	runs := h.gh.CheckRuns(repoName)
	if len(runs) != 1 || runs[0].Status != "completed" || runs[0].Conclusion != "success" {
		t.Errorf("the running plan did not finish: %+v", runs)
	}
	if c := h.botComments(2); len(c) != 1 {
		t.Errorf("%d plan comments, want 1", len(c))
	}
}

func TestMetricsExposition(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.gh.SetRateLimitRemaining(4321)
	h.pr(2, headA)
	h.deliver("pull_request", prOpened(t, 2, headA))
	h.settle()
	m := h.metrics()
	for name, want := range map[string]float64{
		`kyku_bot_queue_depth`:  0,
		`kyku_bot_jobs_running`: 0,
		`kyku_bot_jobs_total{kind="pull_request",outcome="routed"}`:     1,
		`kyku_bot_jobs_total{kind="plan",outcome="planned"}`:            1,
		`kyku_bot_job_duration_seconds_count{kind="plan"}`:              1,
		`kyku_bot_job_duration_seconds_bucket{kind="plan",le="+Inf"}`:   1,
		`kyku_bot_webhooks_total{event="pull_request",result="queued"}`: 1,
		`kyku_bot_github_rate_limit_remaining{installation="1"}`:        4321,
	} {
		if got, ok := m[name]; !ok || got != want {
			t.Errorf("%s = %v (present %v), want %v", name, got, ok, want)
		}
	}
	if m[`kyku_bot_job_duration_seconds_sum{kind="plan"}`] <= 0 {
		t.Error("plan duration sum is not positive")
	}
	resp, err := http.Get(h.http.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Errorf("Content-Type %q, want the Prometheus text format", ct)
	}
}

func TestQueueFullAnswers503AndForgetsTheDelivery(t *testing.T) {
	started := make(chan struct{}, 10)
	release := make(chan struct{})
	rules := bot.Rules{Plan: func(ctx context.Context, d review.Deps, req review.PlanRequest) (*review.PlanOutcome, error) {
		started <- struct{}{}
		<-release
		return review.Plan(ctx, d, req)
	}}
	h := newHarness(t, harnessOpts{workers: 1, queue: 1, rules: rules})
	defer close(release)
	h.pr(2, headA)
	h.deliver("pull_request", prOpened(t, 2, headA)) // the worker runs it, then blocks in its plan
	<-started
	h.deliver("pull_request", fixtureAction(t, prOpened(t, 2, headA), "synchronize")) // waits in the queue
	overflow := fixtureAction(t, prOpened(t, 2, headA), "reopened")
	if code, _ := h.post("pull_request", "overflow", overflow, ""); code != http.StatusServiceUnavailable {
		t.Fatalf("third delivery: %d, want 503 queue full", code)
	}
	release <- struct{}{}
	<-started
	release <- struct{}{}
	h.settle()
	if code, _ := h.post("pull_request", "overflow", overflow, ""); code != http.StatusAccepted {
		t.Errorf("redelivery of the refused delivery: %d, want 202", code)
	}
}

// botGoroutines are the goroutines running the bot's code (a frame of
// internal/bot or of one of its parts), by ID, the tests' own aside.
func botGoroutines() map[string]string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	out := map[string]string{}
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "github.com/kyku/action/internal/bot") && !strings.Contains(g, "testing.tRunner") {
			id, _, _ := strings.Cut(strings.TrimPrefix(g, "goroutine "), " ")
			out[id] = g
		}
	}
	return out
}

// leftBehind waits up to 5 seconds for every goroutine of the bot's not in
// before to end, and returns the stacks of those that did not.
func leftBehind(before map[string]string) []string {
	deadline := time.Now().Add(5 * time.Second)
	for {
		var left []string
		for id, g := range botGoroutines() {
			if _, ok := before[id]; !ok {
				left = append(left, g)
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			slices.Sort(left)
			return left
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// ranWithin is what the bot's Run returned, waited for 10 seconds at most.
func ranWithin(t *testing.T, h *harness) error {
	t.Helper()
	err, ok := h.stopped(10 * time.Second)
	if !ok {
		t.Fatal("the bot's Run did not return")
	}
	return err
}

// TestBotRunsAndStopsItsParts: Run starts every part — the webhook
// intake, the job runner (its workers and, with a store, its leases), the
// drift scheduler and a dispatch watcher — and Shutdown stops every one:
// Run returns nil, and no goroutine of the bot's is left behind.
func TestBotRunsAndStopsItsParts(t *testing.T) {
	before := botGoroutines()
	h := newHarness(t, harnessOpts{
		store: jobstest.NewMemory(), driftInterval: time.Hour,
		actions: bot.ActionsOptions{Poll: time.Hour, StartTimeout: time.Hour},
	})
	h.gh.SetFile(repoName, defaultBranch, ".kyku/config.yaml", []byte(actionsSettings))
	h.gh.SetWorkflow(repoName, "kyku.yml", kykuWorkflow)
	h.pr(2, headA)
	h.deliver("pull_request", prOpened(t, 2, headA))
	h.settle()
	eventually(t, "the dispatched run is not watched", func() bool { return h.metrics()["kyku_bot_dispatches_watched"] == 1 })
	running := botGoroutines()
	for _, part := range []string{
		"intake.(*Intake).Run", "queue.(*Queue).worker", "runner.(*Runner).leases",
		"schedule.(*Scheduler).lead", "dispatch.(*Watchers).Run", "dispatch.(*Watchers).Start",
	} {
		found := false
		for _, g := range running {
			found = found || strings.Contains(g, part)
		}
		if !found {
			t.Errorf("no goroutine runs %s", part)
		}
	}
	if err := h.bot.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := ranWithin(t, h); err != nil {
		t.Errorf("Run = %v, want nil after Shutdown", err)
	}
	if left := leftBehind(before); len(left) > 0 {
		t.Errorf("%d goroutines of the bot's left after Shutdown:\n%s", len(left), strings.Join(left, "\n\n"))
	}
}

// TestBotStopsWhenRunsContextEnds: when the context Run was given ends,
// every part stops at once — the running plan is cancelled, webhooks are
// answered 503 — and Run says why, leaving no goroutine of the bot's.
func TestBotStopsWhenRunsContextEnds(t *testing.T) {
	before := botGoroutines()
	started := make(chan struct{})
	rules := bot.Rules{Plan: func(ctx context.Context, d review.Deps, req review.PlanRequest) (*review.PlanOutcome, error) {
		close(started)
		<-ctx.Done() // a long plan, until its job is cancelled
		return nil, ctx.Err()
	}}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	h := newHarness(t, harnessOpts{rules: rules, ctx: ctx, driftInterval: time.Hour})
	h.pr(2, headA)
	h.deliver("pull_request", prOpened(t, 2, headA))
	<-started
	cancel()
	if err := ranWithin(t, h); !errors.Is(err, context.Canceled) {
		t.Errorf("Run = %v, want its context's error", err)
	}
	if code, _ := h.post("pull_request", "late", prOpened(t, 2, headA), ""); code != http.StatusServiceUnavailable {
		t.Errorf("webhook after Run stopped: %d, want 503", code)
	}
	if left := leftBehind(before); len(left) > 0 {
		t.Errorf("%d goroutines of the bot's left after Run's context ended:\n%s", len(left), strings.Join(left, "\n\n"))
	}
}
