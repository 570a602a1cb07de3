package github

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	gh "github.com/google/go-github/v88/github"
)

// Limits GitHub puts on check runs.
const (
	// MaxCheckNameChars bounds check run names (the Atlantis rule: status
	// and check names stay under 255 characters).
	MaxCheckNameChars = 255
	// MaxCheckOutputChars bounds a check run's output summary and text.
	MaxCheckOutputChars = 65535
)

const truncatedNote = "\n\n… (truncated)"

// truncate keeps s within limit characters, ending a cut string with note.
func truncate(s string, limit int, note string) string {
	r := []rune(s)
	if len(r) <= limit {
		return s
	}
	n := []rune(note)
	return string(r[:limit-len(n)]) + note
}

func checkOutput(title, summary, text string) *gh.CheckRunOutput {
	if title == "" && summary == "" && text == "" {
		return nil
	}
	out := &gh.CheckRunOutput{
		Title:   gh.Ptr(title),
		Summary: gh.Ptr(truncate(summary, MaxCheckOutputChars, truncatedNote)),
	}
	if text != "" {
		out.Text = gh.Ptr(truncate(text, MaxCheckOutputChars, truncatedNote))
	}
	return out
}

// CheckStatus is where a check run is.
type CheckStatus string

// The check run statuses.
const (
	CheckQueued     CheckStatus = "queued"
	CheckInProgress CheckStatus = "in_progress"
	CheckCompleted  CheckStatus = "completed"
)

func (s CheckStatus) String() string { return string(s) }

// CheckConclusion is how a completed check run ended.
type CheckConclusion string

// The check run conclusions GitHub knows.
const (
	CheckSuccess        CheckConclusion = "success"
	CheckFailure        CheckConclusion = "failure"
	CheckNeutral        CheckConclusion = "neutral"
	CheckCancelled      CheckConclusion = "cancelled"
	CheckTimedOut       CheckConclusion = "timed_out"
	CheckActionRequired CheckConclusion = "action_required"
	CheckSkipped        CheckConclusion = "skipped"
	CheckStale          CheckConclusion = "stale"
)

func (c CheckConclusion) String() string { return string(c) }

// ParseCheckConclusion reads a conclusion as GitHub spells it (a workflow
// run's too); ok is false for one a check run cannot have
// (startup_failure, or one GitHub adds later).
func ParseCheckConclusion(s string) (c CheckConclusion, ok bool) {
	switch c := CheckConclusion(s); c {
	case CheckSuccess, CheckFailure, CheckNeutral, CheckCancelled, CheckTimedOut, CheckActionRequired, CheckSkipped, CheckStale:
		return c, true
	}
	return "", false
}

// CheckRun is what a check run is created or updated with; empty fields
// are not sent.
type CheckRun struct {
	Name       string
	Status     CheckStatus
	Conclusion CheckConclusion // with Status CheckCompleted
	Title      string
	Summary    string
	Text       string
	// DetailsURL is where "Details" leads (a workflow run, say);
	// ExternalID is the integrator's own reference.
	DetailsURL string
	ExternalID string
}

// CreateCheck creates check run c on headSHA and returns its ID. The name
// is cut to 255 characters and the summary and text to 65,535.
func (r *Repo) CreateCheck(ctx context.Context, headSHA string, c CheckRun) (int64, error) {
	opts := gh.CreateCheckRunOptions{
		Name:       truncate(c.Name, MaxCheckNameChars, "…"),
		HeadSHA:    headSHA,
		Output:     checkOutput(c.Title, c.Summary, c.Text),
		DetailsURL: optional(c.DetailsURL),
		ExternalID: optional(c.ExternalID),
		Status:     optional(string(c.Status)),
		Conclusion: optional(string(c.Conclusion)),
	}
	cr, resp, err := r.client.Checks.CreateCheckRun(ctx, r.owner, r.name, opts)
	if err := r.done(resp, err, "create check run %q", opts.Name); err != nil {
		return 0, err
	}
	return cr.GetID(), nil
}

// UpdateCheck updates check run id with c (c.Name is required).
func (r *Repo) UpdateCheck(ctx context.Context, id int64, c CheckRun) error {
	if c.Name == "" {
		return fmt.Errorf("update check run %d: empty name", id)
	}
	opts := gh.UpdateCheckRunOptions{
		Name:       truncate(c.Name, MaxCheckNameChars, "…"),
		Output:     checkOutput(c.Title, c.Summary, c.Text),
		DetailsURL: optional(c.DetailsURL),
		ExternalID: optional(c.ExternalID),
		Status:     optional(string(c.Status)),
		Conclusion: optional(string(c.Conclusion)),
	}
	_, resp, err := r.client.Checks.UpdateCheckRun(ctx, r.owner, r.name, id, opts)
	return r.done(resp, err, "update check run %d", id)
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return gh.Ptr(s)
}

// HeadArrived is, by GitHub's clock, the earliest GitHub says it held
// commit sha: the oldest created_at of the commit's check suites. GitHub
// makes a suite for each app with checks permission when a commit is
// pushed (the workflow runs' app, an App's own), or when a check run is
// created on a commit without one, so no suite is older than the push
// that brought the commit. Zero when it cannot tell: the commit has no
// suite, or the token may not read checks (403).
func (r *Repo) HeadArrived(ctx context.Context, sha string) (time.Time, error) {
	var first time.Time
	opts := &gh.ListCheckSuiteOptions{ListOptions: gh.ListOptions{PerPage: perPage}}
	for {
		page, resp, err := r.client.Checks.ListCheckSuitesForRef(ctx, r.owner, r.name, sha, opts)
		// A rate limit's 403 never gets here: the RetryTransport every
		// client has waits on it, then gives up with a RetryError.
		if resp != nil && resp.Response != nil && resp.StatusCode == http.StatusForbidden {
			return time.Time{}, nil
		}
		if err := r.done(resp, err, "list the check suites of %s", sha); err != nil {
			return time.Time{}, err
		}
		for _, cs := range page.CheckSuites {
			if t := cs.GetCreatedAt().Time; !t.IsZero() && (first.IsZero() || t.Before(first)) {
				first = t
			}
		}
		if resp.NextPage == 0 {
			return first, nil
		}
		opts.ListOptions.Page = resp.NextPage
	}
}

// ForcePushedAfter is, by GitHub's clock, the latest time pull request
// number's head branch was force-pushed (its head_ref_force_pushed issue
// events) after since; zero when it was not. A force-push can make the
// head a commit GitHub held long before (HeadArrived cannot tell), such as
// an earlier head pushed again.
func (r *Repo) ForcePushedAfter(ctx context.Context, number int, since time.Time) (time.Time, error) {
	var last time.Time
	opts := &gh.ListOptions{PerPage: perPage}
	for {
		page, resp, err := r.client.Issues.ListIssueEvents(ctx, r.owner, r.name, number, opts)
		if err := r.done(resp, err, "list the events of #%d", number); err != nil {
			return time.Time{}, err
		}
		for _, ev := range page {
			if t := ev.GetCreatedAt().Time; ev.GetEvent() == "head_ref_force_pushed" && t.After(since) && t.After(last) {
				last = t
			}
		}
		if resp.NextPage == 0 {
			return last, nil
		}
		opts.Page = resp.NextPage
	}
}

// BranchPushedAfter is, by GitHub's clock, the latest change to branch of
// repository fullName ("owner/name": a pull request's head repository)
// after since: a push, a force-push, the branch made or deleted (the
// repository activity API, newest first); zero when there was none. A
// push can bring a commit GitHub held long before (pushed to another
// branch first), which HeadArrived cannot tell. ok is false when GitHub
// will not say (403 or 404: a fork this token may not read).
func (r *Repo) BranchPushedAfter(ctx context.Context, fullName, branch string, since time.Time) (last time.Time, ok bool, err error) {
	owner, name, found := strings.Cut(fullName, "/")
	if !found || owner == "" || name == "" || branch == "" {
		return time.Time{}, false, nil
	}
	opts := &gh.ListRepositoryActivityOptions{Ref: "refs/heads/" + branch, PerPage: perPage}
	for {
		page, resp, err := r.client.Repositories.ListRepositoryActivities(ctx, owner, name, opts)
		if resp != nil && resp.Response != nil && (resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusNotFound) {
			return time.Time{}, false, nil
		}
		if err := r.done(resp, err, "list the activity of %s on %s", fullName, branch); err != nil {
			return time.Time{}, false, err
		}
		for _, a := range page {
			t := a.Timestamp.GetTime()
			if t == nil || !t.After(since) {
				return last, true, nil // newest first: the rest is older
			}
			if t.After(last) {
				last = *t
			}
		}
		if resp.After == "" {
			return last, true, nil
		}
		opts.After = resp.After
	}
}
