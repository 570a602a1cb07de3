package github

import (
	"context"
	"errors"
	"fmt"
	"time"

	gh "github.com/google/go-github/v88/github"
)

// WorkflowRun is a GitHub Actions workflow run as the REST API shows it
// (GET /repos/{owner}/{repo}/actions/runs/{run_id}): who started it, on
// what, and how it ended. Everything here is GitHub's own word; nothing
// the run itself wrote.
type WorkflowRun struct {
	ID           int64
	Number       int
	Name         string
	DisplayTitle string // the workflow's run-name, evaluated
	Event        string // workflow_dispatch, pull_request, …
	Status       string // queued, in_progress, completed, …
	Conclusion   string // success, failure, cancelled, … ("" until completed)
	HTMLURL      string
	WorkflowID   int64
	Attempt      int
	HeadBranch   string
	HeadSHA      string
	// Actor started the run; TriggeringActor started this attempt (a
	// re-run's is whoever re-ran it).
	Actor, TriggeringActor string
	Created                time.Time
}

// WorkflowJob is one job of a run.
type WorkflowJob struct {
	Name       string
	Status     string
	Conclusion string
	HTMLURL    string
}

// RunQuery narrows a listing of a workflow's runs.
type RunQuery struct {
	Event   string    // e.g. workflow_dispatch
	Branch  string    // the run's head branch
	HeadSHA string    // the run's head commit
	Created time.Time // runs created at or after this
}

func workflowRun(r *gh.WorkflowRun) WorkflowRun {
	return WorkflowRun{
		ID: r.GetID(), Number: r.GetRunNumber(), Name: r.GetName(), DisplayTitle: r.GetDisplayTitle(),
		Event: r.GetEvent(), Status: r.GetStatus(), Conclusion: r.GetConclusion(), HTMLURL: r.GetHTMLURL(),
		WorkflowID: r.GetWorkflowID(), Attempt: r.GetRunAttempt(), HeadBranch: r.GetHeadBranch(), HeadSHA: r.GetHeadSHA(),
		Actor: r.GetActor().GetLogin(), TriggeringActor: r.GetTriggeringActor().GetLogin(), Created: r.GetCreatedAt().Time,
	}
}

// WorkflowRuns lists the newest runs (at most 100) of workflowFile that
// match q (GET /repos/{owner}/{repo}/actions/workflows/{file}/runs).
func (r *Repo) WorkflowRuns(ctx context.Context, workflowFile string, q RunQuery) ([]WorkflowRun, error) {
	opts := &gh.ListWorkflowRunsOptions{Event: q.Event, Branch: q.Branch, HeadSHA: q.HeadSHA, ListOptions: gh.ListOptions{PerPage: perPage}}
	if !q.Created.IsZero() {
		opts.Created = ">=" + q.Created.UTC().Format(time.RFC3339)
	}
	runs, resp, err := r.client.Actions.ListWorkflowRunsByFileName(ctx, r.owner, r.name, workflowFile, opts)
	if err := r.done(resp, err, "list the runs of workflow %s", workflowFile); err != nil {
		return nil, err
	}
	out := make([]WorkflowRun, 0, len(runs.WorkflowRuns))
	for _, run := range runs.WorkflowRuns {
		out = append(out, workflowRun(run))
	}
	return out, nil
}

// WorkflowRun reads run id.
func (r *Repo) WorkflowRun(ctx context.Context, id int64) (WorkflowRun, error) {
	run, resp, err := r.client.Actions.GetWorkflowRunByID(ctx, r.owner, r.name, id)
	if err := r.done(resp, err, "get workflow run %d", id); err != nil {
		return WorkflowRun{}, err
	}
	return workflowRun(run), nil
}

// WorkflowJobs lists the jobs of run id's latest attempt, every page.
func (r *Repo) WorkflowJobs(ctx context.Context, id int64) ([]WorkflowJob, error) {
	var out []WorkflowJob
	opts := &gh.ListWorkflowJobsOptions{Filter: "latest", ListOptions: gh.ListOptions{PerPage: perPage}}
	for {
		page, resp, err := r.client.Actions.ListWorkflowJobs(ctx, r.owner, r.name, id, opts)
		if err := r.done(resp, err, "list the jobs of workflow run %d", id); err != nil {
			return nil, err
		}
		for _, j := range page.Jobs {
			out = append(out, WorkflowJob{Name: j.GetName(), Status: j.GetStatus(), Conclusion: j.GetConclusion(), HTMLURL: j.GetHTMLURL()})
		}
		if resp.NextPage == 0 {
			return out, nil
		}
		opts.ListOptions.Page = resp.NextPage
	}
}

// BranchHead is the commit branch points at, read from the branch's own
// ref (GET …/git/ref/heads/<branch>): a tag of the same name cannot answer
// for it, as it can for a short ref.
func (r *Repo) BranchHead(ctx context.Context, branch string) (string, error) {
	ref, resp, err := r.client.Git.GetRef(ctx, r.owner, r.name, "heads/"+branch)
	if err := r.done(resp, err, "get the head of branch %s", branch); err != nil {
		return "", err
	}
	sha := ref.GetObject().GetSHA()
	if ref.GetRef() != "refs/heads/"+branch || sha == "" {
		return "", fmt.Errorf("get the head of branch %s: GitHub answered for %q", branch, ref.GetRef())
	}
	return sha, nil
}

// APIError is GitHub's answer to a request it refused: its status code
// and message (for a 422, with the fields it names).
func APIError(err error) (status int, message string, ok bool) {
	var er *gh.ErrorResponse
	if !errors.As(err, &er) || er.Response == nil {
		return 0, "", false
	}
	msg := er.Message
	for _, e := range er.Errors {
		if e.Message != "" {
			msg += "; " + e.Message
		} else if e.Field != "" {
			msg += fmt.Sprintf("; %s %s", e.Field, e.Code)
		}
	}
	return er.Response.StatusCode, msg, true
}
