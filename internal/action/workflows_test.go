package action_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// workflowEvent is an event an example workflow may run on.
type workflowEvent struct {
	name    string
	event   string
	apply   bool // it applies (with the examples' inputs)
	payload map[string]any
	inputs  map[string]any
}

func workflowEvents() []workflowEvent {
	pr := map[string]any{"url": "https://api.github.com/repos/o/r/pulls/7"}
	comment := func(body string) map[string]any {
		return map[string]any{"issue": map[string]any{"number": 7.0, "pull_request": pr}, "comment": map[string]any{"body": body}}
	}
	dispatch := func(cmd string) map[string]any {
		return map[string]any{"command": cmd, "config": "kyku.yaml", "project": "infra", "environment": "prod", "pr": "7", "dispatch-id": "kyku-1"}
	}
	return []workflowEvent{
		{name: "the push of a merge", event: "push", apply: true, payload: map[string]any{"ref": "refs/heads/main"}},
		{name: "a /kyku apply comment", event: "issue_comment", apply: true, payload: comment("/kyku apply")},
		{name: "a merge group's check", event: "merge_group", apply: true, payload: map[string]any{"merge_group": map[string]any{"head_ref": "refs/heads/gh-readonly-queue/main/pr-7"}}},
		{name: "a dispatched apply", event: "workflow_dispatch", apply: true, inputs: dispatch("apply")},
		{name: "a pull request's push", event: "pull_request", payload: map[string]any{"pull_request": map[string]any{"number": 7.0}}},
		{name: "another pull request's push", event: "pull_request", payload: map[string]any{"pull_request": map[string]any{"number": 8.0}}},
		{name: "a /kyku plan comment", event: "issue_comment", payload: comment("/kyku plan")},
		{name: "a comment", event: "issue_comment", payload: comment("LGTM")},
		{name: "the schedule", event: "schedule", payload: map[string]any{"schedule": "0 6 * * *"}},
		{name: "a dispatched plan", event: "workflow_dispatch", inputs: dispatch("plan")},
		{name: "a dispatched drift check", event: "workflow_dispatch", inputs: map[string]any{}},
	}
}

// workflowRun is one run of an example workflow: the concurrency groups
// of each job that runs.
type workflowRun struct {
	what   string
	apply  bool
	groups map[string][]string // job → its groups (the workflow's, the job's)
}

// TestExampleApplyIsNeverCancelled: GitHub keeps one pending run per
// concurrency group and cancels it when a newer run joins the group,
// whatever cancel-in-progress says. So in every example workflow, a run
// that applies — the push of a merge, a /kyku apply comment, a merge
// group's check, a dispatched apply — shares no group with any other run:
// another event's, or another run of the same event. The jobs that apply a
// merge's push may read Actions runs (actions: read), so that the Action
// finds and reports an earlier merge whose run was cancelled all the same
// (TestCancelledMergeIsReported).
func TestExampleApplyIsNeverCancelled(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(repoRoot(t), "examples", "workflows", "*.yml"))
	must(t, err)
	if len(files) < 4 {
		t.Fatalf("example workflows: %v", files)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			must(t, err)
			var wf map[string]any
			must(t, yaml.Unmarshal(data, &wf))
			// Each event twice: two runs of it, with run IDs of their own.
			var runs []workflowRun
			for i, ev := range workflowEvents() {
				if !triggers(wf, ev.event) {
					continue
				}
				for n := range 2 {
					runs = append(runs, runOf(t, wf, ev, fmt.Sprint(1000+10*i+n)))
				}
			}
			applies := 0
			for i, a := range runs {
				if !a.apply || len(a.groups) == 0 {
					continue
				}
				applies++
				for j, b := range runs {
					if i == j {
						continue
					}
					for _, ga := range allGroups(a) {
						if slices.Contains(allGroups(b), ga) {
							t.Errorf("%s shares the concurrency group %q with %s: a run joining it cancels the pending one", a.what, ga, b.what)
						}
					}
				}
			}
			if applies == 0 {
				t.Errorf("no event applies in %s", filepath.Base(file))
			}
			// The runs of one pull request's pushes still share a group:
			// its newest head is the one to plan.
			if triggers(wf, "pull_request") {
				a, b := runOf(t, wf, workflowEvents()[4], "1"), runOf(t, wf, workflowEvents()[4], "2")
				if len(allGroups(a)) == 0 || !slices.Equal(allGroups(a), allGroups(b)) {
					t.Errorf("two runs of a pull request's pushes have groups %v and %v, want one shared", allGroups(a), allGroups(b))
				}
			}
			if triggers(wf, "push") {
				checkCancelledMergesReadable(t, wf, runOf(t, wf, workflowEvents()[0], "1"))
			}
		})
	}
}

// triggers reports whether wf runs on event.
func triggers(wf map[string]any, event string) bool {
	switch on := wf["on"].(type) {
	case string:
		return on == event
	case []any:
		return slices.Contains(on, any(event))
	case map[string]any:
		_, ok := on[event]
		return ok
	}
	return false
}

// runOf evaluates which jobs of wf run on ev (run id) and their groups.
func runOf(t *testing.T, wf map[string]any, ev workflowEvent, id string) workflowRun {
	t.Helper()
	payload := ev.payload
	if payload == nil {
		payload = map[string]any{}
	}
	inputs := ev.inputs
	if inputs == nil {
		inputs = map[string]any{}
	}
	ctx := map[string]any{
		"github": map[string]any{"event_name": ev.event, "event": payload, "run_id": id, "ref": "refs/heads/main", "repository": "o/r"},
		"inputs": inputs,
	}
	// A dispatch applies only in a workflow whose dispatch takes a command
	// (the bot's); elsewhere it is a drift check.
	apply := ev.apply && (ev.event != "workflow_dispatch" || takesCommand(wf))
	run := workflowRun{what: fmt.Sprintf("%s (run %s)", ev.name, id), apply: apply, groups: map[string][]string{}}
	top := group(t, wf["concurrency"], ctx)
	jobs, _ := wf["jobs"].(map[string]any)
	for name, j := range jobs {
		job, _ := j.(map[string]any)
		if cond, ok := job["if"].(string); ok {
			runs, err := evalCondition(cond, ctx)
			if err != nil {
				t.Fatalf("job %s: if: %v", name, err)
			}
			if !runs {
				continue
			}
		}
		var gs []string
		if top != "" {
			gs = append(gs, top)
		}
		if g := group(t, job["concurrency"], ctx); g != "" {
			gs = append(gs, g)
		}
		run.groups[name] = gs
	}
	return run
}

// takesCommand reports whether wf's workflow_dispatch declares input
// command.
func takesCommand(wf map[string]any) bool {
	on, _ := wf["on"].(map[string]any)
	wd, _ := on["workflow_dispatch"].(map[string]any)
	inputs, _ := wd["inputs"].(map[string]any)
	_, ok := inputs["command"]
	return ok
}

// group evaluates a concurrency: value ("" for none).
func group(t *testing.T, c any, ctx map[string]any) string {
	t.Helper()
	var raw string
	switch c := c.(type) {
	case nil:
		return ""
	case string:
		raw = c
	case map[string]any:
		raw, _ = c["group"].(string)
	}
	g, err := interpolate(raw, ctx)
	if err != nil {
		t.Fatalf("concurrency group %q: %v", raw, err)
	}
	return g
}

func allGroups(r workflowRun) []string {
	var out []string
	for _, gs := range r.groups {
		out = append(out, gs...)
	}
	slices.Sort(out)
	return out
}

// checkCancelledMergesReadable: every job of push (a run of the push of a
// merge) that applies it may read the repository's Actions runs.
func checkCancelledMergesReadable(t *testing.T, wf map[string]any, push workflowRun) {
	t.Helper()
	jobs, _ := wf["jobs"].(map[string]any)
	for name := range push.groups {
		job, _ := jobs[name].(map[string]any)
		if !appliesPush(job) {
			continue
		}
		perms := job["permissions"]
		if perms == nil {
			perms = wf["permissions"]
		}
		p, _ := perms.(map[string]any)
		if a := p["actions"]; a != "read" && a != "write" {
			t.Errorf("job %s applies the push of a merge without actions: read (it has %v): it cannot find earlier merges whose runs were cancelled", name, perms)
		}
	}
}

// appliesPush reports whether job runs the Action with an apply input that
// applies a merge's push.
func appliesPush(job map[string]any) bool {
	steps, _ := job["steps"].([]any)
	for _, s := range steps {
		step, _ := s.(map[string]any)
		if uses, _ := step["uses"].(string); !strings.HasPrefix(uses, "kyku/action@") {
			continue
		}
		with, _ := step["with"].(map[string]any)
		apply, _ := with["apply"].(string)
		return apply == "" || apply == "both" || apply == "merge"
	}
	return false
}
