package review

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/kyku/action/internal/github"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/progress"
	"github.com/kyku/action/internal/render"
)

// Plan plans a PR's head: the FULL plan (config embedded) saved in the
// backend at SavedPlanKey, the PR comment per CommentMode (showing the
// plan's ChangesDigest, with a hidden line naming the head and digest that
// Apply compares with) ("sticky": one comment per project and environment,
// found by render.PlanMarker and edited in place, older ones marked
// outdated; "new": a new comment per plan; "off": none), the redacted
// plan.json and the job summary.
//
// The backend and provider are opened from req.Trusted when set (a PR must
// not redirect the state backend); the resources come from req.Config.
// Number 0 (no pull request) plans without saving or commenting. An error
// while opening or planning is returned wrapped and, when comments are on,
// shown on the PR as a failed plan in the same comment.
func Plan(ctx context.Context, d Deps, req PlanRequest) (*PlanOutcome, error) {
	d, s, err := ready(d, req.Settings)
	if err != nil {
		return nil, err
	}
	if req.Config == nil {
		return nil, errors.New("plan: no config")
	}
	// What is scrubbed from messages: the secrets of the configuration
	// planned and of the one the backend is opened with.
	hidden := progress.SecretsOf(req.Config, nil).Add(progress.SecretsOf(req.Trusted, nil))
	// Log masks: only values given from outside the files (secrets),
	// never text the pull request's config chose.
	for _, x := range req.Config.OutsideValues() {
		d.Mask(x)
	}
	for _, x := range req.Trusted.OutsideValues() {
		d.Mask(x)
	}
	out, err := planPR(ctx, d, s, req)
	if err != nil {
		// Returned scrubbed: callers show it (the bot's check run, the
		// Action's log and job summary) as the comment does.
		err = hidden.Error(err)
		if req.Number > 0 && s.CommentMode != ModeOff {
			body := failedPlanBody(s, req.HeadSHA, d.RunURL, err, nil) // err is scrubbed
			if notice := render.ProvidersNotice(changedProviders(ctx, d, req)); notice != "" {
				// Why a provider the pull request brings is not there.
				marker, rest, _ := strings.Cut(body, "\n")
				body = marker + "\n" + notice + rest
			}
			if _, cerr := postPlanComment(ctx, d.GitHub, s, req.Number, body); cerr != nil {
				err = errors.Join(err, cerr)
			}
		}
		return nil, err
	}
	return out, nil
}

func planPR(ctx context.Context, d Deps, s Settings, req PlanRequest) (*PlanOutcome, error) {
	openCfg := req.Trusted
	if openCfg == nil {
		openCfg = req.Config
	}
	ws, err := d.open(ctx, openCfg, s.Environment)
	if err != nil {
		return nil, err
	}
	defer ws.close()
	// A Terraform root's count or for_each reading state or a data
	// source is expanded with them now (config.Config.Pending).
	cfg, err := ws.complete(ctx, req.Config)
	var p *plan.Plan
	if err == nil {
		p, err = ws.Engine.PlanWith(ctx, cfg, reviewPlan) // a plan that destroys everything is shown, with its warning
	}
	if err != nil {
		// Scrubbed of what state and the providers hold as secret too
		// (the engine's book); Plan scrubs the configurations' secrets.
		return nil, fmt.Errorf("plan %s: %w", envName(s.Environment), ws.Engine.Secrets().Known().Error(err))
	}
	data, err := plan.Encode(p)
	if err != nil {
		return nil, err
	}
	digest, err := ChangesDigest(p)
	if err != nil {
		return nil, err
	}
	out := &PlanOutcome{Plan: p, Digest: digest, Policy: policyReport(ctx, d, s, p)}
	if req.Number > 0 {
		out.SavedKey = SavedPlanKey(s.Project, s.Environment, req.Number, req.HeadSHA)
		if err := ws.Backend.PutObject(ctx, out.SavedKey, data); err != nil {
			return nil, fmt.Errorf("save plan %s: %w", out.SavedKey, err)
		}
	}
	var buf bytes.Buffer
	if err := render.PlanJSON(&buf, render.RedactPlan(p), render.JSONOptions{}); err != nil {
		return nil, err
	}
	out.Redacted = buf.Bytes()
	m := render.Meta{
		CommitSHA: req.HeadSHA, Digest: digest, RunURL: d.RunURL, ArtifactURL: d.ArtifactURL,
		Environment: s.Environment, Project: s.Project, Policy: out.Policy, ShowUnchanged: s.ShowUnchanged,
	}
	if req.Number > 0 && d.RuleChanges != nil {
		if m.RulesChanged, err = d.RuleChanges(ctx, req.Number); err != nil {
			return nil, fmt.Errorf("list the review rules #%d changes: %w", req.Number, err)
		}
	}
	m.RulesChanged, m.ProvidersChanged = splitLocks(m.RulesChanged)
	m.ProvidersChanged = append(providerChanges(req.Trusted, req.Config), m.ProvidersChanged...)
	out.Summary = render.PlanSummary(p, m, render.SummaryLimit)
	if req.Number > 0 {
		// The hidden line says which commit and changes the comment shows:
		// apply compares it with a fresh plan.
		line := reviewedLine(req.HeadSHA, digest)
		body := render.PlanComment(p, m, render.CommentLimit-len(line)-2) + "\n" + line + "\n"
		c, err := postPlanComment(ctx, d.GitHub, s, req.Number, body)
		if err != nil {
			return nil, err
		}
		out.CommentURL = c.HTMLURL
		if c.ID != 0 {
			// What Kyku posted, kept where only Kyku writes: apply compares
			// the comment with it (a writer can edit any comment).
			if err := recordPosted(ctx, d, ws, s, req.Number, req.HeadSHA, digest, c); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// postPlanComment posts body as the plan comment per s.CommentMode and
// returns it as GitHub answered (zero when comments are off).
func postPlanComment(ctx context.Context, gh Comments, s Settings, number int, body string) (github.Comment, error) {
	marker := render.PlanMarker(s.Project, s.Environment)
	switch s.CommentMode {
	case ModeSticky:
		c, err := gh.Upsert(ctx, number, marker, body)
		if err != nil {
			return github.Comment{}, fmt.Errorf("update plan comment on #%d: %w", number, err)
		}
		if err := gh.MarkOutdated(ctx, number, marker, c.ID); err != nil {
			return github.Comment{}, fmt.Errorf("mark older plan comments on #%d outdated: %w", number, err)
		}
		return c, nil
	case ModeNew:
		c, err := gh.PostComment(ctx, number, body)
		if err != nil {
			return github.Comment{}, fmt.Errorf("create plan comment on #%d: %w", number, err)
		}
		return c, nil
	}
	return github.Comment{}, nil
}

// failedPlanBody is the plan comment that says why there is no plan.
// err's text is scrubbed of hidden (the Secrets way).
func failedPlanBody(s Settings, sha, runURL string, err error, hidden []string) string {
	text := "No plan could be computed"
	if sha != "" {
		text += " for commit " + code(sha7(sha))
	}
	text += ", so there is nothing to apply:\n\n" + fenced(progress.NewSecrets(hidden...).Scrub(err.Error())) + "\n" +
		"Fix the cause and push a new commit, or comment " + code(commandFor("plan", s)) + " to try again.\n"
	return reply(render.PlanMarker(s.Project, s.Environment), title("plan", s)+" failed", text, sha, runURL)
}
