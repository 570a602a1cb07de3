package dispatch

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kyku/action/internal/bot/jobs"
	"github.com/kyku/action/internal/github"
)

// Runs is what a watch reads and writes on GitHub: the workflow's runs
// and their jobs, and the check run it ends (*github.Repo).
type Runs interface {
	WorkflowRuns(ctx context.Context, workflowFile string, q github.RunQuery) ([]github.WorkflowRun, error)
	WorkflowRun(ctx context.Context, id int64) (github.WorkflowRun, error)
	WorkflowJobs(ctx context.Context, id int64) ([]github.WorkflowJob, error)
	UpdateCheck(ctx context.Context, id int64, c github.CheckRun) error
}

var _ Runs = (*github.Repo)(nil)

// Watch is one dispatched run followed to its end.
type Watch struct {
	Repo     Runs
	Self     string // the App's account: the only one whose runs count
	RepoName string // owner/name, for logs
	Target   string // project/environment
	Check    string // the check run's name
	CheckRun int64  // the check run's ID, once opened
	Step     string // the durable job's step the watch is
	Dispatch jobs.Dispatch

	ws     *Watchers
	status string // the run's status last shown
}

// Dispatching is the check run opened before the dispatch is sent.
func (w *Watch) Dispatching() github.CheckRun { return w.named(w.view().dispatching()) }

// run follows w until its check run is ended (false) or ctx ends first
// (true: interrupted, the job is taken over and watched again).
func (w *Watch) run(ctx context.Context, nudged <-chan struct{}) (interrupted bool) {
	for {
		if done := w.look(ctx); done {
			return false
		}
		select {
		case <-ctx.Done():
			return true
		case <-w.ws.opts.After(w.ws.opts.Poll):
		case <-nudged:
		}
	}
}

// look looks at the run once; done when the check run was ended.
func (w *Watch) look(ctx context.Context) bool {
	o := w.ws.opts
	now := o.Now()
	if w.Dispatch.Run == 0 {
		run, n, err := w.find(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			o.Logger.Warn("looking for a dispatched run", "repo", w.RepoName, "dispatch", w.Dispatch.ID, "error", err.Error())
		case n > 1:
			w.end(ctx, w.view().claimedTwice(n), "other")
			return true
		case n == 1 && run.HeadSHA != w.Dispatch.HeadSHA:
			w.Dispatch.Run, w.Dispatch.RunURL = run.ID, run.HTMLURL
			w.notOurs(ctx, run)
			return true
		case n == 1:
			w.Dispatch.Run, w.Dispatch.RunURL = run.ID, run.HTMLURL
			d := w.Dispatch
			o.Jobs.Record(ctx, w.Step, func(st *jobs.Step) { st.Dispatch = &d })
			o.Logger.Info("dispatched run found", "repo", w.RepoName, "dispatch", w.Dispatch.ID, "run", run.ID)
			return w.follow(ctx, run)
		}
		if now.Sub(w.Dispatch.At) >= o.StartTimeout {
			w.end(ctx, w.view().notStarted(o.StartTimeout), "not_started")
			return true
		}
		return false
	}
	run, err := w.Repo.WorkflowRun(ctx, w.Dispatch.Run)
	if err != nil {
		if ctx.Err() == nil {
			o.Logger.Warn("reading a dispatched run", "repo", w.RepoName, "run", w.Dispatch.Run, "error", err.Error())
		}
		if errors.Is(err, github.ErrNotFound) {
			w.end(ctx, w.view().gone(), "other")
			return true
		}
	} else if w.follow(ctx, run) {
		return true
	}
	if now.Sub(w.Dispatch.At) >= o.MaxRun {
		w.end(ctx, w.view().timedOut(run.Status, o.MaxRun), "timed_out")
		return true
	}
	return false
}

// find looks for the dispatch's run among the workflow's runs: the ones
// that are the App's own dispatches on the default branch and show the
// dispatch ID, whatever commit they ran (look checks it). n is how many
// there are.
func (w *Watch) find(ctx context.Context) (github.WorkflowRun, int, error) {
	runs, err := w.Repo.WorkflowRuns(ctx, w.Dispatch.Workflow, github.RunQuery{
		Event: "workflow_dispatch", Branch: w.branch(), Created: w.Dispatch.At.Add(-2 * time.Minute),
	})
	if err != nil {
		return github.WorkflowRun{}, 0, err
	}
	var found []github.WorkflowRun
	for _, r := range runs {
		if w.claims(r) && strings.Contains(r.DisplayTitle, w.Dispatch.ID) {
			found = append(found, r)
		}
	}
	if len(found) == 1 {
		return found[0], 1, nil
	}
	return github.WorkflowRun{}, len(found), nil
}

// branch is the default branch the dispatch named (its ref's short name).
func (w *Watch) branch() string { return strings.TrimPrefix(w.Dispatch.Ref, "refs/heads/") }

// claims reports whether run can be the bot's dispatch by who started it
// and how: a workflow_dispatch whose head_branch reads the default
// branch's name, started (this attempt too) by the App's account. A tag
// of the branch's name reads the same: ours also checks the commit.
func (w *Watch) claims(r github.WorkflowRun) bool {
	return r.Event == "workflow_dispatch" && r.HeadBranch == w.branch() &&
		strings.EqualFold(r.Actor, w.Self) && strings.EqualFold(r.TriggeringActor, w.Self)
}

// ours reports whether run is the bot's dispatch: it claims to be, and it
// runs the commit the default branch pointed at when Kyku dispatched.
func (w *Watch) ours(r github.WorkflowRun) bool {
	return w.claims(r) && w.Dispatch.HeadSHA != "" && r.HeadSHA == w.Dispatch.HeadSHA
}

// notOurs ends the check run of a dispatch whose run is the App's but ran
// another commit than the default branch's head: a tag named like the
// branch (which a short ref resolves to first), or a dispatch record
// without the commit.
func (w *Watch) notOurs(ctx context.Context, run github.WorkflowRun) {
	w.end(ctx, w.view().notOurs(run.HeadSHA), "other")
}

// follow shows run on the check run; done when it ended (and so did the
// check run).
func (w *Watch) follow(ctx context.Context, run github.WorkflowRun) bool {
	if !w.claims(run) {
		w.end(ctx, w.view().rerun(run.TriggeringActor), "other")
		return true
	}
	if !w.ours(run) {
		w.notOurs(ctx, run)
		return true
	}
	if run.Status == "completed" {
		w.completed(ctx, run)
		return true
	}
	if run.Status == w.status {
		return false
	}
	w.status = run.Status
	check := w.named(w.view().running(run))
	check.DetailsURL = run.HTMLURL
	err := w.Repo.UpdateCheck(ctx, w.CheckRun, check)
	if err != nil && ctx.Err() == nil {
		w.ws.opts.Logger.Warn("check run of a dispatched run not updated", "repo", w.RepoName, "run", run.ID, "error", err.Error())
	}
	return false
}

// completed ends the check run with the run's conclusion and its jobs'.
func (w *Watch) completed(ctx context.Context, run github.WorkflowRun) {
	runJobs, err := w.Repo.WorkflowJobs(ctx, run.ID)
	if err != nil {
		runJobs = nil
	}
	check := w.view().completed(run, runJobs)
	result := "other"
	switch check.Conclusion {
	case github.CheckSuccess, github.CheckFailure, github.CheckCancelled, github.CheckTimedOut:
		result = check.Conclusion.String()
	}
	w.end(ctx, check, result)
}

// refused ends the check run of a dispatch GitHub refused.
func (w *Watch) refused(ctx context.Context, err error) {
	why := err.Error()
	if status, msg, ok := github.APIError(err); ok {
		why = fmt.Sprintf("%d %s", status, msg)
	}
	w.end(ctx, w.view().refused(why), "refused")
	w.ws.opts.Logger.Warn("workflow dispatch refused", "repo", w.RepoName, "workflow", w.Dispatch.Workflow, "target", w.Target, "error", why)
}

// end completes the check run with check, counting result.
func (w *Watch) end(ctx context.Context, check github.CheckRun, result string) {
	check = w.named(check)
	if w.Dispatch.RunURL != "" {
		check.DetailsURL = w.Dispatch.RunURL
	}
	if err := w.Repo.UpdateCheck(context.WithoutCancel(ctx), w.CheckRun, check); err != nil {
		w.ws.opts.Logger.Warn("check run of a dispatched run not ended", "repo", w.RepoName, "dispatch", w.Dispatch.ID, "error", err.Error())
	}
	w.ws.opts.Ended(result)
}

// view is what w's check run speaks of.
func (w *Watch) view() dispatchView {
	v := dispatchView{d: w.Dispatch, self: w.Self, target: w.Target}
	if w.ws != nil {
		v.store = w.ws.opts.StoreSetting
	}
	return v
}

// named is check as w's check run: its name and the dispatch ID.
func (w *Watch) named(check github.CheckRun) github.CheckRun {
	check.Name, check.ExternalID = w.Check, w.Dispatch.ID
	return check
}
