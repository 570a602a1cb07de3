package githubtest

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	gh "github.com/google/go-github/v88/github"
)

// Workflow is a workflow file as the fake knows it (SetWorkflow): its
// workflow_dispatch trigger and inputs, and its run-name. A dispatch of a
// workflow never declared is accepted with any inputs and starts no run.
type Workflow struct {
	ID   int64  // default: assigned
	Name string // the workflow's name: (default the file name)
	// Inputs are the workflow_dispatch inputs it declares; Required those
	// without a default that must be given.
	Inputs   []string
	Required []string
	// RunName is the workflow's run-name, with ${{ inputs.<name> }}
	// (the only expressions the fake evaluates) replaced by the
	// dispatch's inputs; "" gives runs the workflow's name, as GitHub does.
	RunName string
	// NoDispatch: the workflow has no workflow_dispatch trigger.
	NoDispatch bool
	// Disabled: the workflow was disabled.
	Disabled bool
	// NeverStarts: a dispatch is accepted (204) but no run appears (Actions
	// disabled for the repository, a runner that never comes).
	NeverStarts bool
}

// WorkflowRun is a run of a workflow.
type WorkflowRun struct {
	ID       int64
	Workflow string // the workflow file, e.g. kyku.yml
	Number   int
	Attempt  int
	// DisplayTitle is the evaluated run-name.
	DisplayTitle           string
	Event                  string
	Status                 string // queued, in_progress, completed
	Conclusion             string
	HeadBranch             string
	HeadSHA                string
	Actor, TriggeringActor string
	Inputs                 map[string]any // a dispatched run's inputs (the API does not show them)
	Created                time.Time
	Jobs                   []WorkflowJob
}

// WorkflowJob is a job of a run.
type WorkflowJob struct {
	Name       string
	Status     string
	Conclusion string
}

// maxDispatchInputs is the most inputs a workflow_dispatch takes ("The
// maximum number of properties is 10", REST API: Create a workflow
// dispatch event).
const maxDispatchInputs = 10

func (s *Server) actionsRoutes(api func(string, handler)) {
	api("POST /repos/{owner}/{repo}/actions/workflows/{workflow}/dispatches", s.dispatch)
	api("GET /repos/{owner}/{repo}/actions/workflows/{workflow}/runs", s.listWorkflowRuns)
	api("GET /repos/{owner}/{repo}/actions/runs/{id}", s.getWorkflowRun)
	api("GET /repos/{owner}/{repo}/actions/runs/{id}/jobs", s.listWorkflowJobs)
}

// SetWorkflow declares workflow file (e.g. "kyku.yml") of a repository.
func (s *Server) SetWorkflow(fullName, file string, wf Workflow) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(fullName, true)
	if wf.ID == 0 {
		wf.ID = s.id()
	}
	if wf.Name == "" {
		wf.Name = file
	}
	if rp.workflows == nil {
		rp.workflows = map[string]*Workflow{}
	}
	rp.workflows[file] = &wf
}

// AddWorkflowRun adds a run the test starts itself (one not dispatched
// through the API: a pull request's, or a look-alike), and returns its ID.
func (s *Server) AddWorkflowRun(fullName string, run WorkflowRun) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addRunLocked(s.repoLocked(fullName, true), run)
}

func (s *Server) addRunLocked(rp *repo, run WorkflowRun) int64 {
	run.ID = s.id()
	rp.runNumber++
	run.Number = rp.runNumber
	if run.Attempt == 0 {
		run.Attempt = 1
	}
	if run.Status == "" {
		run.Status = "queued"
	}
	if run.Created.IsZero() {
		run.Created = s.now().UTC().Truncate(time.Second)
	}
	if run.TriggeringActor == "" {
		run.TriggeringActor = run.Actor
	}
	rp.runs = append(rp.runs, &run)
	return run.ID
}

// UpdateWorkflowRun changes run id (its status, conclusion, jobs).
func (s *Server) UpdateWorkflowRun(fullName string, id int64, update func(*WorkflowRun)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.repoLocked(fullName, true).runs {
		if r.ID == id {
			update(r)
		}
	}
}

// WorkflowRuns returns the repository's runs, oldest first.
func (s *Server) WorkflowRuns(fullName string) []WorkflowRun {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []WorkflowRun
	for _, r := range s.repoLocked(fullName, true).runs {
		c := *r
		c.Jobs = slices.Clone(r.Jobs)
		out = append(out, c)
	}
	return out
}

// dispatch answers POST …/actions/workflows/{file}/dispatches as GitHub
// does: 404 for an unknown workflow, 422 for one without the trigger,
// disabled, given inputs it does not declare, missing a required one or
// more than ten; else 204 and a queued run whose actor is the token's
// account. With "return_run_details": true, 200 and the run's IDs (the
// API since February 2026; older servers refuse the field with 400).
func (s *Server) dispatch(w http.ResponseWriter, r *http.Request, login string) {
	rp := s.repoFor(w, r)
	if rp == nil {
		return
	}
	var in struct {
		Ref              string         `json:"ref"`
		Inputs           map[string]any `json:"inputs"`
		ReturnRunDetails *bool          `json:"return_run_details"`
	}
	if !decode(w, r, &in) {
		return
	}
	if in.Ref == "" {
		writeInvalid(w, "Workflow", "ref")
		return
	}
	file := r.PathValue("workflow")
	wf := rp.workflows[file]
	if wf == nil && rp.workflows != nil {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	if wf != nil {
		var unexpected []string
		for k := range in.Inputs {
			if !slices.Contains(wf.Inputs, k) {
				unexpected = append(unexpected, strconv.Quote(k))
			}
		}
		slices.Sort(unexpected)
		switch {
		case wf.NoDispatch:
			writeError(w, http.StatusUnprocessableEntity, "Workflow does not have 'workflow_dispatch' trigger")
			return
		case wf.Disabled:
			writeError(w, http.StatusUnprocessableEntity, "Cannot trigger a 'workflow_dispatch' on a disabled workflow")
			return
		case len(in.Inputs) > maxDispatchInputs:
			writeError(w, http.StatusUnprocessableEntity, "you may only define up to 10 `inputs` for a `workflow_dispatch` event")
			return
		case len(unexpected) > 0:
			writeError(w, http.StatusUnprocessableEntity, "Unexpected inputs provided: ["+strings.Join(unexpected, ", ")+"]")
			return
		}
		for _, req := range wf.Required {
			if _, ok := in.Inputs[req]; !ok {
				writeError(w, http.StatusUnprocessableEntity, "Required input '"+req+"' not provided")
				return
			}
		}
	}
	rp.dispatches = append(rp.dispatches, Dispatch{Workflow: file, Ref: in.Ref, Inputs: in.Inputs})
	var id int64
	if wf != nil && !wf.NeverStarts {
		sha, branch := rp.resolveRef(in.Ref)
		id = s.addRunLocked(rp, WorkflowRun{
			Workflow: file, DisplayTitle: runName(wf, in.Inputs), Event: "workflow_dispatch",
			HeadBranch: branch, HeadSHA: sha, Actor: login, Inputs: in.Inputs,
		})
	}
	if in.ReturnRunDetails != nil && *in.ReturnRunDetails && id != 0 {
		writeJSON(w, http.StatusOK, map[string]any{
			"workflow_run_id": id,
			"run_url":         s.URL + BasePath + "repos/" + rp.fullName() + "/actions/runs/" + strconv.FormatInt(id, 10),
			"html_url":        s.runURL(rp, id),
		})
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// runName evaluates a workflow's run-name for a dispatch's inputs.
func runName(wf *Workflow, inputs map[string]any) string {
	if wf.RunName == "" {
		return wf.Name
	}
	out := wf.RunName
	for k, v := range inputs {
		val := fmt.Sprint(v)
		out = strings.ReplaceAll(out, "${{ inputs."+k+" }}", val)
		out = strings.ReplaceAll(out, "${{ github.event.inputs."+k+" }}", val)
	}
	return out
}

func (s *Server) runURL(rp *repo, id int64) string {
	return s.URL + "/" + rp.fullName() + "/actions/runs/" + strconv.FormatInt(id, 10)
}

func (s *Server) runJSON(rp *repo, run *WorkflowRun) map[string]any {
	wfID := int64(0)
	name := run.Workflow
	if wf := rp.workflows[run.Workflow]; wf != nil {
		wfID, name = wf.ID, wf.Name
	}
	out := map[string]any{
		"id": run.ID, "name": name, "display_title": run.DisplayTitle, "event": run.Event,
		"status": run.Status, "conclusion": nil, "html_url": s.runURL(rp, run.ID),
		"head_branch": run.HeadBranch, "head_sha": run.HeadSHA, "run_number": run.Number, "run_attempt": run.Attempt,
		"workflow_id": wfID, "path": ".github/workflows/" + run.Workflow,
		"actor": user(run.Actor), "triggering_actor": user(run.TriggeringActor),
		"created_at": run.Created.UTC().Format(time.RFC3339), "updated_at": run.Created.UTC().Format(time.RFC3339),
	}
	if run.Conclusion != "" {
		out["conclusion"] = run.Conclusion
	}
	return out
}

// listWorkflowRuns answers GET …/actions/workflows/{file}/runs, newest
// first, with the filters Kyku uses: event, branch, head_sha, actor,
// status and created (">=<RFC 3339>").
func (s *Server) listWorkflowRuns(w http.ResponseWriter, r *http.Request, _ string) {
	rp := s.repoFor(w, r)
	if rp == nil {
		return
	}
	file := r.PathValue("workflow")
	if rp.workflows[file] == nil {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	q := r.URL.Query()
	var from time.Time
	if c := q.Get("created"); c != "" {
		t, err := time.Parse(time.RFC3339, strings.TrimPrefix(c, ">="))
		if err != nil || !strings.HasPrefix(c, ">=") {
			writeError(w, http.StatusUnprocessableEntity, "Validation Failed: created")
			return
		}
		from = t
	}
	var runs []map[string]any
	for _, run := range slices.Backward(rp.runs) {
		switch {
		case run.Workflow != file,
			q.Get("event") != "" && run.Event != q.Get("event"),
			q.Get("branch") != "" && run.HeadBranch != q.Get("branch"),
			q.Get("head_sha") != "" && run.HeadSHA != q.Get("head_sha"),
			q.Get("actor") != "" && !strings.EqualFold(run.Actor, q.Get("actor")),
			q.Get("status") != "" && run.Status != q.Get("status"),
			run.Created.Before(from):
			continue
		}
		runs = append(runs, s.runJSON(rp, run))
	}
	total := len(runs)
	page := paginate(w, r, runs)
	writeJSON(w, http.StatusOK, map[string]any{"total_count": total, "workflow_runs": page})
}

func (s *Server) runFor(w http.ResponseWriter, r *http.Request) (*repo, *WorkflowRun) {
	rp := s.repoFor(w, r)
	if rp == nil {
		return nil, nil
	}
	id, ok := pathInt(w, r, "id")
	if !ok {
		return nil, nil
	}
	for _, run := range rp.runs {
		if run.ID == id {
			return rp, run
		}
	}
	writeError(w, http.StatusNotFound, "Not Found")
	return nil, nil
}

func (s *Server) getWorkflowRun(w http.ResponseWriter, r *http.Request, _ string) {
	rp, run := s.runFor(w, r)
	if run == nil {
		return
	}
	writeJSON(w, http.StatusOK, s.runJSON(rp, run))
}

func (s *Server) listWorkflowJobs(w http.ResponseWriter, r *http.Request, _ string) {
	rp, run := s.runFor(w, r)
	if run == nil {
		return
	}
	var jobs []*gh.WorkflowJob
	for i, j := range run.Jobs {
		job := &gh.WorkflowJob{
			ID: gh.Ptr(run.ID*100 + int64(i)), RunID: gh.Ptr(run.ID), Name: gh.Ptr(j.Name), Status: gh.Ptr(j.Status),
			HTMLURL: gh.Ptr(s.runURL(rp, run.ID) + "/job/" + strconv.Itoa(i+1)),
		}
		if j.Conclusion != "" {
			job.Conclusion = gh.Ptr(j.Conclusion)
		}
		jobs = append(jobs, job)
	}
	page := paginate(w, r, jobs)
	writeJSON(w, http.StatusOK, map[string]any{"total_count": len(jobs), "jobs": page})
}
