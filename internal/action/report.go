package action

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	gh "github.com/google/go-github/v88/github"

	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/noun"
	"github.com/kyku/action/internal/workspace"
)

// outputs are the step outputs (action.yml); every one is written on every
// run, so that a workflow never reads a missing output.
type outputs struct {
	planFile                             string
	hasChanges                           bool
	creates, updates, replaces, destroys int
	moves, imports                       int
	drift                                bool
	commentURL                           string
	applied                              bool
}

func (o outputs) pairs() [][2]string {
	return [][2]string{
		{"plan-file", o.planFile},
		{"has-changes", strconv.FormatBool(o.hasChanges)},
		{"creates", strconv.Itoa(o.creates)},
		{"updates", strconv.Itoa(o.updates)},
		{"replaces", strconv.Itoa(o.replaces)},
		{"destroys", strconv.Itoa(o.destroys)},
		{"moves", strconv.Itoa(o.moves)},
		{"imports", strconv.Itoa(o.imports)},
		{"drift", strconv.FormatBool(o.drift)},
		{"comment-url", o.commentURL},
		{"applied", strconv.FormatBool(o.applied)},
	}
}

// finish writes the outputs and the job summary.
func (r *run) finish() {
	defer func() {
		// go-githubactions panics when it cannot write a file command.
		if p := recover(); p != nil {
			r.a.Errorf("write the step outputs or job summary: %v", p)
		}
	}()
	if r.env.Getenv("GITHUB_OUTPUT") != "" {
		for _, kv := range r.out.pairs() {
			r.a.SetOutput(kv[0], kv[1])
		}
	}
	if r.summary != "" && r.env.Getenv("GITHUB_STEP_SUMMARY") != "" {
		r.a.AddStepSummary(r.summary)
	}
}

// writePlanFile writes the redacted plan.json the workflow uploads as an
// artifact, under RUNNER_TEMP, and returns its path.
func (r *run) writePlanFile(data []byte) (string, error) {
	dir := r.planDir()
	if r.reporting != "" {
		dir = filepath.Join(dir, filepath.FromSlash(r.reporting))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("write plan.json: %w", err)
	}
	file := filepath.Join(dir, "plan.json")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		return "", fmt.Errorf("write plan.json: %w", err)
	}
	return file, nil
}

// planDir is where plan.json is written: RUNNER_TEMP/kyku/<env>, one
// directory per project below it when a run plans several.
func (r *run) planDir() string {
	dir := r.env.Getenv("RUNNER_TEMP")
	if dir == "" {
		dir = filepath.Join(r.src.root, workspace.StateDirName)
	}
	return filepath.Join(dir, "kyku", envName(r.in.Environment))
}

// fail reports err, scrubbed of the secrets the run knows: config errors
// as annotations on their file and line, a token that may not write with
// what to change, anything else as one error. The summary says the same.
func (r *run) fail(err error) int {
	err = r.known().Error(err)
	var ds diag.Diagnostics
	if errors.As(err, &ds) {
		ds.Sort()
		lines := make([]string, len(ds))
		for i, d := range ds {
			props := map[string]string{"title": "kyku config"}
			if d.Pos.File != "" {
				props["file"] = d.Pos.File
			}
			if d.Pos.Line > 0 {
				props["line"] = strconv.Itoa(d.Pos.Line)
			}
			if d.Pos.Col > 0 {
				props["col"] = strconv.Itoa(d.Pos.Col)
			}
			r.a.WithFieldsMap(props).Errorf("%s", d.Message)
			lines[i] = d.String()
		}
		r.summary = summaryFailed("the configuration has "+noun.Count(len(ds), "error"), strings.Join(lines, "\n"))
		return ExitFail
	}
	msg := err.Error()
	var ge *gh.ErrorResponse
	if errors.As(err, &ge) && ge.Response != nil && ge.Response.StatusCode == http.StatusForbidden {
		var rl *gh.RateLimitError
		var al *gh.AbuseRateLimitError
		if !errors.As(err, &rl) && !errors.As(err, &al) {
			msg += "\n\nThe token may not write to this repository. Give the workflow `permissions: { contents: read, pull-requests: write, issues: write }`; " +
				"pull requests from forks and Dependabot always get a read-only token."
		}
	}
	r.a.Errorf("%s", msg)
	r.summary = summaryFailed("it failed", msg)
	return ExitFail
}
