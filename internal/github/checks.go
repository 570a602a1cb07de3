package github

import (
	"context"
	"fmt"

	gh "github.com/google/go-github/v62/github"
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
		Title:   gh.String(title),
		Summary: gh.String(truncate(summary, MaxCheckOutputChars, truncatedNote)),
	}
	if text != "" {
		out.Text = gh.String(truncate(text, MaxCheckOutputChars, truncatedNote))
	}
	return out
}

// CheckRun is what a check run is created or updated with; empty fields
// are not sent.
type CheckRun struct {
	Name       string
	Status     string // queued, in_progress or completed
	Conclusion string
	Title      string
	Summary    string
	Text       string
	// DetailsURL is where "Details" leads (a workflow run, say);
	// ExternalID is the integrator's own reference.
	DetailsURL string
	ExternalID string
}

// CreateCheckRun creates a check run on headSHA and returns its ID. status
// is queued, in_progress or completed; conclusion is sent only when set.
// The name is cut to 255 characters and the summary and text to 65,535.
func (r *Repo) CreateCheckRun(ctx context.Context, name, headSHA string, status, conclusion, title, summary, text string) (int64, error) {
	return r.CreateCheck(ctx, headSHA, CheckRun{Name: name, Status: status, Conclusion: conclusion, Title: title, Summary: summary, Text: text})
}

// CreateCheck creates check run c on headSHA and returns its ID.
func (r *Repo) CreateCheck(ctx context.Context, headSHA string, c CheckRun) (int64, error) {
	opts := gh.CreateCheckRunOptions{
		Name:       truncate(c.Name, MaxCheckNameChars, "…"),
		HeadSHA:    headSHA,
		Output:     checkOutput(c.Title, c.Summary, c.Text),
		DetailsURL: optional(c.DetailsURL),
		ExternalID: optional(c.ExternalID),
		Status:     optional(c.Status),
		Conclusion: optional(c.Conclusion),
	}
	cr, resp, err := r.client.Checks.CreateCheckRun(ctx, r.owner, r.name, opts)
	if err := r.done(resp, err, "create check run %q", opts.Name); err != nil {
		return 0, err
	}
	return cr.GetID(), nil
}

// UpdateCheckRun updates check run id like CreateCheckRun creates one.
func (r *Repo) UpdateCheckRun(ctx context.Context, id int64, name, status, conclusion, title, summary, text string) error {
	return r.UpdateCheck(ctx, id, CheckRun{Name: name, Status: status, Conclusion: conclusion, Title: title, Summary: summary, Text: text})
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
		Status:     optional(c.Status),
		Conclusion: optional(c.Conclusion),
	}
	_, resp, err := r.client.Checks.UpdateCheckRun(ctx, r.owner, r.name, id, opts)
	return r.done(resp, err, "update check run %d", id)
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return gh.String(s)
}
