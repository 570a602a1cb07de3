package review

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/progress"
	"github.com/kyku/action/internal/render"
)

// auditTime is the sortable UTC timestamp of an audit record's key.
const auditTime = "20060102T150405.000000000Z"

// AuditKey is the backend object key of the audit record of an apply that
// finished at t: runs/<env>/<UTC time>-pr<number>.json (env "default" when
// empty), under the project's name when there is one, like SavedPlanKey.
// Keys of one environment sort by time.
func AuditKey(project, env string, t time.Time, number int) string {
	if env == "" {
		env = "default"
	}
	if project != "" {
		env = project + "/" + env
	}
	return "runs/" + env + "/" + t.UTC().Format(auditTime) + "-pr" + itoa(number) + ".json"
}

// finish records an apply that ran: audit record, result comment, reaction.
// runErr is the engine's error after changes were made (state not saved).
func (a *applier) finish(ctx context.Context, ws *Workspace, res *engine.Result, runErr error, started time.Time, secrets progress.Secrets) (*ApplyOutcome, error) {
	finished := a.d.Now()
	// What Apply hands back shows no more than the comment: the Action's
	// job summary and log, and the bot, print the result's errors.
	res = scrubResult(res, secrets)
	a.out.Applied, a.out.Result = true, res
	var errs []error
	if runErr != nil {
		runErr = secrets.Error(runErr)
		errs = append(errs, fmt.Errorf("apply %s: %w", envName(a.s.Environment), runErr))
	}
	rec := AuditRecord{
		PR: a.pr.Number, Environment: a.s.Environment, Project: a.s.Project,
		RequestedBy: a.req.Commenter, ApprovedBy: append([]string{}, a.out.Approvers...),
		Trigger: a.trigger(), HeadSHA: a.pr.HeadSHA, MergeSHA: a.req.MergeSHA,
		PlanDigest: a.out.Digest, SerialBefore: res.SerialBefore, SerialAfter: res.SerialAfter,
		BackupKey: res.BackupKey, RunURL: a.d.RunURL,
		Succeeded: len(res.Succeeded), Failed: len(res.Failed), Skipped: len(res.Skipped),
		StartedAt: started.UTC(), FinishedAt: finished.UTC(),
		Policy: a.auditPolicy(),
	}
	key := AuditKey(a.s.Project, a.s.Environment, finished, a.pr.Number)
	data, err := json.MarshalIndent(rec, "", "  ")
	if err == nil {
		err = ws.Backend.PutObject(ctx, key, append(data, '\n'))
	}
	if err != nil {
		errs = append(errs, fmt.Errorf("write audit record %s: %w", key, err))
	} else {
		a.out.AuditKey = key
	}

	m := render.Meta{
		CommitSHA: a.pr.HeadSHA, Digest: a.out.Digest, RunURL: a.d.RunURL,
		Environment: a.s.Environment, Project: a.s.Project,
	}
	note := applyNotes(runErr, a.out.AuditKey == "", a.out.PolicyOverriddenBy)
	if res.Err() == nil && runErr == nil && a.out.AuditKey != "" {
		note += appliedLine(a.s.Environment, a.pr.HeadSHA, a.out.AuditKey) + "\n"
	}
	body := render.ApplyComment(applyResult(res, a.s.Environment, a.out.Digest), m, render.CommentLimit-len(note))
	if err := a.answer(ctx, body+note); err != nil {
		errs = append(errs, err)
	}
	if res.Err() == nil && runErr == nil {
		a.react(ctx, ReactApplied)
	} else {
		a.react(ctx, ReactFailed)
	}
	return a.out, errors.Join(errs...)
}

// scrubResult is a copy of res with the error of every change scrubbed of
// secrets (res itself when there are none).
func scrubResult(res *engine.Result, secrets progress.Secrets) *engine.Result {
	if res == nil || secrets.Len() == 0 {
		return res
	}
	conv := func(cs []engine.ChangeResult) []engine.ChangeResult {
		out := slices.Clone(cs)
		for i := range out {
			out[i].Err = secrets.Error(out[i].Err)
		}
		return out
	}
	c := *res
	c.Succeeded, c.Failed, c.Skipped = conv(res.Succeeded), conv(res.Failed), conv(res.Skipped)
	return &c
}

// applyResult converts an engine result (scrubbed: scrubResult) for
// rendering, sensitive outputs masked (the applied plan's configuration
// says which are).
func applyResult(res *engine.Result, env, digest string) render.ApplyResult {
	conv := func(cs []engine.ChangeResult) []render.ChangeResult {
		out := make([]render.ChangeResult, len(cs))
		for i, c := range cs {
			out[i] = render.ChangeResult{Action: c.Action, Type: c.Type, Name: c.Name, ProviderID: c.ProviderID}
			if c.Err != nil {
				out[i].Err = c.Err.Error()
			}
		}
		return out
	}
	var cfg *config.Config
	if res.Plan != nil {
		cfg = res.Plan.Config
	}
	return render.ApplyResult{
		Environment: env, Succeeded: conv(res.Succeeded), Failed: conv(res.Failed), Skipped: conv(res.Skipped),
		Interrupted: res.Interrupted, Digest: digest, SerialBefore: res.SerialBefore, SerialAfter: res.SerialAfter,
		BackupKey: res.BackupKey, Outputs: res.Outputs, SensitiveOutputs: cfg.SensitiveOutputs(), Duration: res.Duration,
	}
}
