package action

import (
	"strconv"
	"strings"
	"time"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/progress"
	"github.com/kyku/action/internal/render"
	"github.com/kyku/action/internal/review"
)

// The job summaries of the outcomes whose markdown package review does not
// produce (a plan's comes with its PlanOutcome). Golden-tested.

func summarySkipped(title, reason string) string {
	return "### " + title + "\n\n" + reason + "\n"
}

func summaryFailed(what, detail string) string {
	return "### Kyku failed: " + what + "\n\n```text\n" + fence(detail) + "\n```\n"
}

func summaryReplied(command, url string) string {
	s := "### Kyku answered `" + strings.ReplaceAll(command, "`", "'") + "`\n"
	if url != "" {
		s += "\n[The reply](" + url + ")\n"
	}
	return s
}

// summaryApply is the apply's result without output values (the summary is
// readable by anyone who can read the repository's Actions), its texts
// scrubbed of secrets and of those of the applied plan.
func summaryApply(env string, out *review.ApplyOutcome, m render.Meta, secrets progress.Secrets) string {
	link := ""
	if out.CommentURL != "" {
		link = "\n[The pull request comment](" + out.CommentURL + ")\n"
	}
	if out.Refused != nil {
		return "### Kyku did not apply to `" + envName(env) + "`\n\n" + secrets.Scrub(out.Refused.Message) + "\n" + link
	}
	if out.Result == nil {
		return "### Kyku apply to `" + envName(env) + "`\n" + link
	}
	res := out.Result
	secrets = secrets.Add(progress.SecretsOf(nil, res.Plan))
	changes := func(in []engine.ChangeResult) []render.ChangeResult {
		out := make([]render.ChangeResult, len(in))
		for i, c := range in {
			out[i] = render.ChangeResult{Action: c.Action, Type: c.Type, Name: c.Name, ProviderID: c.ProviderID}
			if c.Err != nil {
				out[i].Err = secrets.Scrub(c.Err.Error())
			}
		}
		return out
	}
	m.Digest = out.Digest
	ar := render.ApplyResult{
		Environment: env, Succeeded: changes(res.Succeeded), Failed: changes(res.Failed), Skipped: changes(res.Skipped),
		Interrupted: res.Interrupted, Digest: out.Digest, SerialBefore: res.SerialBefore, SerialAfter: res.SerialAfter,
		BackupKey: res.BackupKey, Duration: res.Duration,
	}
	return render.ApplyComment(ar, m, render.SummaryLimit) + link
}

func summaryDrift(env string, out *review.DriftOutcome, m render.Meta, now time.Time) string {
	checked := 0
	if out.Result != nil {
		checked = out.Result.Checked
	}
	if !out.Drift {
		where := "`" + envName(env) + "`"
		if m.Project != "" {
			where += " (project `" + m.Project + "`)"
		}
		s := "### Kyku: no drift in " + where + "\n\n" + strconv.Itoa(checked) + " resource(s) checked; the cloud matches the state.\n"
		if out.Closed {
			s += "\nThe open drift issue was closed.\n"
		}
		return s
	}
	var res []render.DriftedResource
	if out.Result != nil {
		for _, d := range out.Result.Drift {
			res = append(res, render.DriftedResource{Type: d.Type, Name: d.Name, ProviderID: d.ProviderID, Gone: d.Gone, Properties: d.Properties})
		}
	}
	s := render.DriftIssue(render.Drift{Environment: env, Resources: res, CheckedAt: now}, m, render.SummaryLimit)
	if out.IssueURL != "" {
		s += "\n[The drift issue](" + out.IssueURL + ")\n"
	}
	return s
}

// fence keeps text from closing the summary's code block.
func fence(s string) string {
	return strings.ReplaceAll(s, "```", "'''")
}
