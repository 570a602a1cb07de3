package bot

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"

	"github.com/kyku/action/internal/bot/dispatch"
	"github.com/kyku/action/internal/bot/jobs"
	"github.com/kyku/action/internal/bot/settings"
	"github.com/kyku/action/internal/github"
)

// execution: actions. The bot hands each target to the repository's own
// workflow (its compute, its cloud credentials) and keeps it in sight: a
// check run per dispatched target, opened before the dispatch, that a
// watch (package dispatch) follows to the run's end.

// DispatchIDInput is the workflow_dispatch input that tells the bot's
// dispatches apart; the workflow's run-name must show it.
const DispatchIDInput = dispatch.IDInput

// ActionsOptions tune the watch of dispatched runs.
type ActionsOptions = dispatch.Timing

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
func (rt *router) dispatch(ctx context.Context, ev event, repo *github.Repo, s *settings.Settings, targets []settings.Target, cmd, sha string) (string, error) {
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
		w := &dispatch.Watch{
			Repo: repo, Self: self, Check: dispatchCheckName(cmd, t), Target: t.Label(),
			Step: "dispatch " + cmd + " " + targetKey(ev, t), RepoName: ev.fullName(),
		}
		st := rt.runner.Progress(ctx, w.Step)
		switch {
		case st.Done:
			continue
		case st.Dispatch != nil && st.CheckRun != 0:
			w.Dispatch, w.CheckRun = *st.Dispatch, st.CheckRun
			rt.log.Info("dispatched run watched again after a takeover", "repo", ev.fullName(), "target", t.Label(), "dispatch", w.Dispatch.ID)
			rt.watch.Start(ctx, w)
			continue
		}
		w.Dispatch = jobs.Dispatch{ID: newDispatchID(), Workflow: s.Workflow, Ref: "refs/heads/" + ev.defaultBranch, HeadSHA: head, At: rt.now().UTC()}
		// The check run first and the dispatch recorded before it is
		// sent: a worker that dies in between leaves a check run that a
		// takeover ends ("did not start"), never a second run.
		id, err := repo.CreateCheck(ctx, sha, w.Dispatching())
		if err != nil {
			return "", fmt.Errorf("hand %s of %s to actions: %w", cmd, t.Label(), err)
		}
		w.CheckRun = id
		d := w.Dispatch
		rt.runner.Record(ctx, w.Step, func(st *jobs.Step) { st.CheckRun, st.Dispatch = id, &d })
		inputs := map[string]any{
			"command":       cmd,
			"config":        t.Project.Config,
			"environment":   t.Env,
			"project":       t.Project.Name,
			"pr":            strconv.Itoa(ev.number),
			"sha":           sha,
			"requested-by":  ev.comment.author, // "" for a plan of a push
			DispatchIDInput: w.Dispatch.ID,
		}
		if err := repo.DispatchWorkflow(ctx, s.Workflow, w.Dispatch.Ref, inputs); err != nil {
			rt.watch.Refused(ctx, w, err)
			rt.runner.Record(ctx, w.Step, func(st *jobs.Step) { st.Done = true })
			outcome = "dispatch-refused"
			continue
		}
		rt.log.Info("workflow dispatched", "repo", ev.fullName(), "pr", ev.number, "workflow", s.Workflow,
			"command", cmd, "target", t.Label(), "dispatch", w.Dispatch.ID)
		rt.watch.Start(ctx, w)
	}
	return outcome, nil
}

func newDispatchID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return "kyku-" + hex.EncodeToString(b)
}
