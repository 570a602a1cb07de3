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

// requeuer is a replica whose delivery's routing job spawns one step,
// "apply env#pr-2", that asks on its first run to be requeued behind the
// key "env" (as a pull request's job on a state without leases does).
type requeuer struct {
	r   *runner.Runner
	run chan error
	mu  sync.Mutex
	got []string
}

func (q *requeuer) add(s string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.got = append(q.got, s)
}

func (q *requeuer) steps() []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]string(nil), q.got...)
}

func startRequeuer(t *testing.T, name string, store jobs.Objects) *requeuer {
	q := &requeuer{run: make(chan error, 1)}
	q.r = runner.New(runner.Options{
		Queue:  queue.Options{Workers: 2},
		Store:  jobs.New(store, jobs.Options{Secret: secret, Holder: name, Lease: lease}),
		Secret: secret, Replica: name,
		Resume: func(rec jobs.Record) (queue.Job, string, error) { return q.routing(), "", nil },
	})
	go func() { q.run <- q.r.Run(t.Context()) }()
	synctest.Wait()
	return q
}

func (q *requeuer) routing() queue.Job {
	return queue.Job{Kind: "route", Key: "pr-2", Run: func(ctx context.Context) (string, error) {
		return "", q.r.Spawn(ctx, queue.Job{Kind: "apply", Key: "env#pr-2", Run: func(ctx context.Context) (string, error) {
			if !queue.Requeued(ctx) {
				q.add("requeued")
				return "", &queue.Requeue{Key: "env", Reason: "no leases"}
			}
			q.add("applied")
			return "", nil
		}})
	}}
}

func (q *requeuer) accept(t *testing.T, id string) {
	t.Helper()
	body := []byte(`{"delivery":"` + id + `"}`)
	rec := jobs.Record{ID: id, Event: "issue_comment", Body: body, MAC: hex.EncodeToString(jobs.MAC(secret, body)), Accepted: time.Now(), AcceptedBy: "a"}
	if err := q.r.Accept(t.Context(), rec, q.routing()); err != nil {
		t.Fatal(err)
	}
}

// hold runs a job on key "env" until the returned channel is closed.
func (q *requeuer) hold(t *testing.T) chan struct{} {
	t.Helper()
	release := make(chan struct{})
	if err := q.r.Submit(queue.Job{Kind: "drift", Key: "env", Run: func(ctx context.Context) (string, error) {
		select {
		case <-release:
		case <-ctx.Done():
		}
		return "", nil
	}}); err != nil {
		t.Fatal(err)
	}
	synctest.Wait()
	return release
}

// TestRequeuedStepKeepsItsJob: a durable job's step that was requeued is
// not done: the job stays recorded and leased while it waits, and ends
// once the step ran again.
func TestRequeuedStepKeepsItsJob(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := jobstest.NewMemory()
		a := startRequeuer(t, "a", mem)
		release := a.hold(t)
		a.accept(t, "d-1")
		synctest.Wait()
		if got := records(t, mem); len(got) != 1 || a.r.Leased() != 1 || a.r.Running() != 1 || a.r.Depth() != 1 {
			t.Errorf("while the step waits: records %v, leased %d, running %d, queued %d; want the job recorded and leased, the holder running, the step queued",
				got, a.r.Leased(), a.r.Running(), a.r.Depth())
		}
		close(release)
		synctest.Wait()
		if got := records(t, mem); len(got) != 0 || a.r.Leased() != 0 {
			t.Errorf("after the step ran: records %v, leased %d; want none", got, a.r.Leased())
		}
		if err := a.r.Shutdown(t.Context()); err != nil {
			t.Fatal(err)
		}
		<-a.run
		if diff := cmp.Diff([]string{"requeued", "applied"}, a.steps()); diff != "" {
			t.Errorf("steps (-want +got):\n%s", diff)
		}
	})
}

// TestRequeuedStepSurvivesARestart: a replica shut down while a step
// waits requeued gives its job back; the next replica runs the step (it
// was not done), which is judged from the start there.
func TestRequeuedStepSurvivesARestart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := jobstest.NewMemory()
		a := startRequeuer(t, "a", mem)
		a.hold(t)
		a.accept(t, "d-1")
		synctest.Wait()
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		if err := a.r.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Shutdown = %v, want its deadline (the holder runs on)", err)
		}
		<-a.run
		if got := records(t, mem); len(got) != 1 {
			t.Fatalf("records after the shutdown: %v, want the job left for the next replica", got)
		}
		b := startRequeuer(t, "b", mem)
		synctest.Wait()
		if got := records(t, mem); len(got) != 0 {
			t.Errorf("records after b: %v, want none", got)
		}
		if err := b.r.Shutdown(t.Context()); err != nil {
			t.Fatal(err)
		}
		<-b.run
		if diff := cmp.Diff([]string{"requeued"}, a.steps()); diff != "" {
			t.Errorf("a's steps (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"requeued", "applied"}, b.steps()); diff != "" {
			t.Errorf("b's steps (-want +got):\n%s", diff)
		}
	})
}
