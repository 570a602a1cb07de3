package bot

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kyku/action/internal/bot/jobs"
	"github.com/kyku/action/internal/bot/settings"
	"github.com/kyku/action/internal/github"
)

// execution: actions. The bot hands each target to the repository's own
// workflow (its compute, its cloud credentials) and keeps it in sight: a
// check run per dispatched target, opened before the dispatch, that links
// the run it started and ends with that run's conclusion.
//
// The run is found by the dispatch's own input dispatch-id (random, one per
// dispatch), which the workflow shows in its run-name; of the workflow's
// runs only one from a workflow_dispatch, started by the App's own account
// (actor and triggering actor), on the default branch's head commit counts
// — nothing else can start a run as the App, so no other run, whatever it
// is named, completes the bot's check run. The dispatch names the branch
// by its full ref (refs/heads/<branch>): a short one resolves to a tag of
// the same name first, as git's refs do, and a run's head_branch reads the
// same for both, so the run must also be on the commit the branch pointed
// at when Kyku dispatched (read from refs/heads/<branch>); a run on
// another commit ends the check run as not Kyku's. What the check run
// says comes from the Actions API read with the App's token (the run's
// conclusion, its jobs'), never from anything the run writes. GitHub
// refusing the dispatch (a workflow without these inputs, disabled,
// missing) is reported on the check run at once; a dispatch GitHub
// accepted whose run does not appear within ActionsOptions.StartTimeout
// (Actions disabled, no runner) is reported then.

// DispatchIDInput is the workflow_dispatch input that tells the bot's
// dispatches apart; the workflow's run-name must show it.
const DispatchIDInput = "dispatch-id"

// ActionsOptions tune the watch of dispatched runs.
type ActionsOptions struct {
	// Poll is the time between two looks at a run (default 20s).
	Poll time.Duration
	// StartTimeout is how long a dispatched run may take to appear
	// (default 5 minutes).
	StartTimeout time.Duration
	// MaxRun is how long a run is watched before its check run is ended
	// as timed out (default 6 hours, GitHub's limit for one job).
	MaxRun time.Duration
}

func (o ActionsOptions) withDefaults() ActionsOptions {
	if o.Poll <= 0 {
		o.Poll = 20 * time.Second
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = 5 * time.Minute
	}
	if o.MaxRun <= 0 {
		o.MaxRun = 6 * time.Hour
	}
	return o
}

// dispatchCheckName is the check run of a dispatched target: the plan's is
// named as the in-process one, so required checks work either way.
func dispatchCheckName(cmd string, t settings.Target) string {
	switch cmd {
	case "plan":
		return CheckName(t)
	case "refresh":
		return "kyku drift (" + t.Label() + ")"
	}
	return "kyku " + cmd + " (" + t.Label() + ")"
}

// dispatch hands each target to the user's Kyku workflow (execution:
// actions) instead of running it here, each with a check run on sha (the
// default branch's head for a drift check) that follows the run. The
// workflow declares these workflow_dispatch inputs: command, config,
// environment, project, pr, sha, requested-by (who commented the command;
// empty for the plan of a push) and dispatch-id, and shows dispatch-id in
// its run-name. A target already dispatched before this job was taken
// over is watched again, not dispatched twice.
func (b *Bot) dispatch(ctx context.Context, ev event, repo *github.Repo, s *settings.Settings, targets []settings.Target, cmd, sha string) (string, error) {
	self, err := repo.Self(ctx)
	if err != nil {
		return "", fmt.Errorf("hand %s to actions: %w", cmd, err)
	}
	head, err := repo.BranchHead(ctx, ev.defaultBranch)
	if err != nil {
		return "", fmt.Errorf("hand %s to actions: %w", cmd, err)
	}
	if cmd == "refresh" {
		sha = head
	}
	outcome := "dispatched"
	for _, t := range targets {
		w := &watch{
			b: b, repo: repo, self: self, check: dispatchCheckName(cmd, t), head: sha, target: t.Label(),
			step: "dispatch " + cmd + " " + targetKey(ev, t), repoName: ev.fullName(),
		}
		st := b.progress(ctx, w.step)
		switch {
		case st.Done:
			continue
		case st.Dispatch != nil && st.CheckRun != 0:
			w.d, w.checkRun = *st.Dispatch, st.CheckRun
			b.log.Info("dispatched run watched again after a takeover", "repo", ev.fullName(), "target", t.Label(), "dispatch", w.d.ID)
			b.watch.start(ctx, w)
			continue
		}
		w.d = jobs.Dispatch{ID: newDispatchID(), Workflow: s.Workflow, Ref: "refs/heads/" + ev.defaultBranch, HeadSHA: head, At: b.now().UTC()}
		// The check run first and the dispatch recorded before it is
		// sent: a worker that dies in between leaves a check run that a
		// takeover ends ("did not start"), never a second run.
		id, err := repo.CreateCheck(ctx, sha, w.named(w.view().dispatching()))
		if err != nil {
			return "", fmt.Errorf("hand %s of %s to actions: %w", cmd, t.Label(), err)
		}
		w.checkRun = id
		b.record(ctx, w.step, func(st *jobs.Step) { st.CheckRun, st.Dispatch = id, &w.d })
		inputs := map[string]any{
			"command":       cmd,
			"config":        t.Project.Config,
			"environment":   t.Env,
			"project":       t.Project.Name,
			"pr":            strconv.Itoa(ev.number),
			"sha":           sha,
			"requested-by":  ev.comment.author, // "" for a plan of a push
			DispatchIDInput: w.d.ID,
		}
		if err := repo.DispatchWorkflow(ctx, s.Workflow, w.d.Ref, inputs); err != nil {
			w.refused(ctx, err)
			b.record(ctx, w.step, func(st *jobs.Step) { st.Done = true })
			outcome = "dispatch-refused"
			continue
		}
		b.log.Info("workflow dispatched", "repo", ev.fullName(), "pr", ev.number, "workflow", s.Workflow,
			"command", cmd, "target", t.Label(), "dispatch", w.d.ID)
		b.watch.start(ctx, w)
	}
	return outcome, nil
}

func newDispatchID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return "kyku-" + hex.EncodeToString(b)
}

// watch is one dispatched run followed to its end.
type watch struct {
	b        *Bot
	repo     *github.Repo
	self     string // the App's account: the only one whose runs count
	repoName string
	target   string
	check    string // the check run's name
	checkRun int64
	head     string
	step     string
	d        jobs.Dispatch
	status   string // the run's status last shown
}

// run follows w until its check run is ended (false) or ctx ends first
// (true: interrupted, the job is taken over and watched again).
func (w *watch) run(ctx context.Context) (interrupted bool) {
	b := w.b
	o := b.watch.opts
	for {
		if done := w.look(ctx, o); done {
			return false
		}
		select {
		case <-ctx.Done():
			return true
		case <-b.after(o.Poll):
		case <-b.watch.nudged(w.d.ID):
		}
	}
}

// look looks at the run once; done when the check run was ended.
func (w *watch) look(ctx context.Context, o ActionsOptions) bool {
	b := w.b
	now := b.now()
	if w.d.Run == 0 {
		run, n, err := w.find(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			b.log.Warn("looking for a dispatched run", "repo", w.repoName, "dispatch", w.d.ID, "error", err.Error())
		case n > 1:
			w.end(ctx, w.view().claimedTwice(n), "other")
			return true
		case n == 1 && run.HeadSHA != w.d.HeadSHA:
			w.d.Run, w.d.RunURL = run.ID, run.HTMLURL
			w.notOurs(ctx, run)
			return true
		case n == 1:
			w.d.Run, w.d.RunURL = run.ID, run.HTMLURL
			b.record(ctx, w.step, func(st *jobs.Step) { st.Dispatch = &w.d })
			b.log.Info("dispatched run found", "repo", w.repoName, "dispatch", w.d.ID, "run", run.ID)
			return w.follow(ctx, run)
		}
		if now.Sub(w.d.At) >= o.StartTimeout {
			w.end(ctx, w.view().notStarted(o.StartTimeout), "not_started")
			return true
		}
		return false
	}
	run, err := w.repo.WorkflowRun(ctx, w.d.Run)
	if err != nil {
		if ctx.Err() == nil {
			b.log.Warn("reading a dispatched run", "repo", w.repoName, "run", w.d.Run, "error", err.Error())
		}
		if errors.Is(err, github.ErrNotFound) {
			w.end(ctx, w.view().gone(), "other")
			return true
		}
	} else if w.follow(ctx, run) {
		return true
	}
	if now.Sub(w.d.At) >= o.MaxRun {
		w.end(ctx, w.view().timedOut(run.Status, o.MaxRun), "timed_out")
		return true
	}
	return false
}

// find looks for the dispatch's run among the workflow's runs: the ones
// that are the App's own dispatches on the default branch and show the
// dispatch ID, whatever commit they ran (look checks it). n is how many
// there are.
func (w *watch) find(ctx context.Context) (github.WorkflowRun, int, error) {
	runs, err := w.repo.WorkflowRuns(ctx, w.d.Workflow, github.RunQuery{
		Event: "workflow_dispatch", Branch: w.branch(), Created: w.d.At.Add(-2 * time.Minute),
	})
	if err != nil {
		return github.WorkflowRun{}, 0, err
	}
	var found []github.WorkflowRun
	for _, r := range runs {
		if w.claims(r) && strings.Contains(r.DisplayTitle, w.d.ID) {
			found = append(found, r)
		}
	}
	if len(found) == 1 {
		return found[0], 1, nil
	}
	return github.WorkflowRun{}, len(found), nil
}

// branch is the default branch the dispatch named (its ref's short name).
func (w *watch) branch() string { return strings.TrimPrefix(w.d.Ref, "refs/heads/") }

// claims reports whether run can be the bot's dispatch by who started it
// and how: a workflow_dispatch whose head_branch reads the default
// branch's name, started (this attempt too) by the App's account. A tag
// of the branch's name reads the same: ours also checks the commit.
func (w *watch) claims(r github.WorkflowRun) bool {
	return r.Event == "workflow_dispatch" && r.HeadBranch == w.branch() &&
		strings.EqualFold(r.Actor, w.self) && strings.EqualFold(r.TriggeringActor, w.self)
}

// ours reports whether run is the bot's dispatch: it claims to be, and it
// runs the commit the default branch pointed at when Kyku dispatched.
func (w *watch) ours(r github.WorkflowRun) bool {
	return w.claims(r) && w.d.HeadSHA != "" && r.HeadSHA == w.d.HeadSHA
}

// notOurs ends the check run of a dispatch whose run is the App's but ran
// another commit than the default branch's head: a tag named like the
// branch (which a short ref resolves to first), or a dispatch record
// without the commit.
func (w *watch) notOurs(ctx context.Context, run github.WorkflowRun) {
	w.end(ctx, w.view().notOurs(run.HeadSHA), "other")
}

// follow shows run on the check run; done when it ended (and so did the
// check run).
func (w *watch) follow(ctx context.Context, run github.WorkflowRun) bool {
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
	err := w.repo.UpdateCheck(ctx, w.checkRun, check)
	if err != nil && ctx.Err() == nil {
		w.b.log.Warn("check run of a dispatched run not updated", "repo", w.repoName, "run", run.ID, "error", err.Error())
	}
	return false
}

// completed ends the check run with the run's conclusion and its jobs'.
func (w *watch) completed(ctx context.Context, run github.WorkflowRun) {
	runJobs, err := w.repo.WorkflowJobs(ctx, run.ID)
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
func (w *watch) refused(ctx context.Context, err error) {
	why := err.Error()
	if status, msg, ok := github.APIError(err); ok {
		why = fmt.Sprintf("%d %s", status, msg)
	}
	w.end(ctx, w.view().refused(why), "refused")
	w.b.log.Warn("workflow dispatch refused", "repo", w.repoName, "workflow", w.d.Workflow, "target", w.target, "error", why)
}

// end completes the check run with check, counting result.
func (w *watch) end(ctx context.Context, check github.CheckRun, result string) {
	check = w.named(check)
	if w.d.RunURL != "" {
		check.DetailsURL = w.d.RunURL
	}
	if err := w.repo.UpdateCheck(context.WithoutCancel(ctx), w.checkRun, check); err != nil {
		w.b.log.Warn("check run of a dispatched run not ended", "repo", w.repoName, "dispatch", w.d.ID, "error", err.Error())
	}
	w.b.metrics.dispatched(result)
}

// view is what w's check run speaks of.
func (w *watch) view() dispatchView { return dispatchView{d: w.d, self: w.self, target: w.target} }

// named is check as w's check run: its name and the dispatch ID.
func (w *watch) named(check github.CheckRun) github.CheckRun {
	check.Name, check.ExternalID = w.check, w.d.ID
	return check
}

// watchers are the dispatched runs this replica follows: goroutines, not
// queue workers (a run takes minutes), each a part of its durable job.
type watchers struct {
	b      *Bot
	opts   ActionsOptions
	ctx    context.Context // cancelled by stop (shutdown)
	cancel context.CancelFunc
	wg     sync.WaitGroup
	n      atomic.Int64

	mu     sync.Mutex
	nudges map[string]chan struct{} // dispatch ID -> woken by a workflow_run delivery
}

func newWatchers(b *Bot, o ActionsOptions) *watchers {
	ctx, cancel := context.WithCancel(context.Background())
	return &watchers{b: b, opts: o.withDefaults(), ctx: ctx, cancel: cancel, nudges: map[string]chan struct{}{}}
}

// start follows w in the background, as a part of the durable job ctx
// belongs to (its lease is renewed until w ends).
func (ws *watchers) start(ctx context.Context, w *watch) {
	ref := stepFrom(ctx)
	wctx, cancel := context.WithCancel(ws.ctx)
	stop := func() bool { return true }
	if ref != nil {
		ref.t.add()
		stop = context.AfterFunc(ref.t.ctx, cancel)
	}
	ch := make(chan struct{}, 1)
	ws.mu.Lock()
	ws.nudges[w.d.ID] = ch
	ws.mu.Unlock()
	ws.wg.Add(1)
	ws.n.Add(1)
	go func() {
		defer ws.wg.Done()
		defer ws.n.Add(-1)
		defer cancel()
		defer stop()
		defer func() {
			ws.mu.Lock()
			delete(ws.nudges, w.d.ID)
			ws.mu.Unlock()
		}()
		interrupted := w.run(wctx)
		if interrupted && ws.b.jobs == nil {
			// Without a store nothing takes the watch over: say so.
			w.end(wctx, w.view().abandoned(), "abandoned")
		}
		if ref != nil {
			ref.t.done(w.step, interrupted)
		}
	}()
}

// nudged is woken when a workflow_run delivery names dispatch id.
func (ws *watchers) nudged(id string) <-chan struct{} {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.nudges[id]
}

// nudge wakes the watchers whose dispatch ID title shows (a workflow_run
// delivery's display_title): they look at their run now rather than at
// the next poll. The delivery is only a hint; the run is read from the API.
func (ws *watchers) nudge(title string) int {
	if ws == nil {
		return 0
	}
	ws.mu.Lock()
	defer ws.mu.Unlock()
	n := 0
	for id, ch := range ws.nudges {
		if strings.Contains(title, id) {
			select {
			case ch <- struct{}{}:
			default:
			}
			n++
		}
	}
	return n
}

func (ws *watchers) count() int { return int(ws.n.Load()) }

// stop stops every watch (they are taken over by another replica when the
// job is durable) and waits for them.
func (ws *watchers) stop() {
	ws.cancel()
	ws.wg.Wait()
}
