package action_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/kyku/action/internal/github/githubtest"
)

// TestForkPullRequestDoesNothing: a fork's run has a read-only token and
// no secrets; the Action says why in the log and summary, exits 0 and
// calls no API.
func TestForkPullRequestDoesNothing(t *testing.T) {
	f := newFixture(t)
	ev := prEvent(t, "pull_request.opened.json", 2, shaA)
	obj(ev, "pull_request", "head", "repo")["full_name"] = "mallory/Hello-World"
	r := f.run("pull_request", ev, map[string]string{"INPUT_GITHUB-TOKEN": "ghs_readonly_fork_token"})
	wantCode(t, r, 0)
	if n := len(f.srv.Requests()); n != 0 {
		t.Errorf("a fork's run made %d API requests: %+v", n, f.srv.Requests())
	}
	if !strings.Contains(r.stdout, "::notice::Kyku did not run: Pull request #2 comes from a fork (`mallory/Hello-World`), and this repository does not plan pull requests from forks") {
		t.Errorf("the log does not say why nothing ran:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "::add-mask::ghs_readonly_fork_token") {
		t.Errorf("the token is not masked:\n%s", r.stdout)
	}
	wantOutputs(t, r, map[string]string{"has-changes": "false", "applied": "false", "plan-file": "", "comment-url": ""})
	f.golden("summary_fork.md", r.summary)
}

// TestConfigErrorsAreAnnotations: every config error becomes an ::error
// annotation on its repository-relative file, line and column, whether the
// config came from the checkout or from the PR head through the API.
func TestConfigErrorsAreAnnotations(t *testing.T) {
	bad := func(f *fixture) string {
		return "provider: sim\n" + f.backend + "resources:\n  web:\n    type: Vm\n    properties: { image: debian-12, colour: blue }\n  db:\n    type: Nope\n"
	}
	annotation := regexp.MustCompile(`(?m)^::error col=\d+,file=infra/kyku\.yaml,line=\d+,title=kyku config::.+$`)
	tests := []struct {
		name  string
		event string
		setup func(*fixture) map[string]any
	}{
		{"checkout (schedule)", "schedule", func(f *fixture) map[string]any {
			f.setCheckout(bad(f))
			return payload(t, "workflow_dispatch.json", nil)
		}},
		{"pull request head (tarball)", "pull_request", func(f *fixture) map[string]any {
			f.setRef(defaultRef, f.config("web"))
			f.setRef(shaA, bad(f))
			f.addPR(2, shaA)
			return prEvent(t, "pull_request.opened.json", 2, shaA)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			r := f.run(tc.event, tc.setup(f), nil)
			wantCode(t, r, 1)
			got := annotation.FindAllString(r.stdout, -1)
			if len(got) != 2 {
				t.Fatalf("want 2 annotations (unknown property, unknown type), got %d; log:\n%s", len(got), r.stdout)
			}
			// line 6 col 37: `colour`; line 8: the type Nope.
			if !strings.Contains(got[0], "col=37,file=infra/kyku.yaml,line=6,") || !strings.Contains(got[0], `unknown property "colour"`) ||
				!strings.Contains(got[1], "line=8,") || !strings.Contains(got[1], `unknown type "Nope"`) {
				t.Errorf("annotations on the wrong lines: %q", got)
			}
			if !strings.Contains(r.summary, "the configuration has 2 errors") {
				t.Errorf("summary:\n%s", r.summary)
			}
		})
	}
}

// TestNothingToDo: events that rightly do nothing exit 0 and say why,
// without writing to GitHub.
func TestNothingToDo(t *testing.T) {
	tests := []struct {
		name  string
		event string
		ev    func(t *testing.T) map[string]any
		says  string
	}{
		{"push to another branch", "push", func(t *testing.T) map[string]any { return pushEvent(t, "refs/heads/feature", mergeSHA) },
			"is not to the default branch `master`"},
		{"push of a tag", "push", func(t *testing.T) map[string]any { return pushEvent(t, "refs/tags/v1", mergeSHA) },
			"is not to the default branch"},
		{"direct push to the default branch", "push", func(t *testing.T) map[string]any { return pushEvent(t, "refs/heads/master", mergeSHA) },
			"a direct push is not applied"},
		{"pull request closed", "pull_request", func(t *testing.T) map[string]any {
			return prEvent(t, "pull_request.closed.json", 2, shaA)
		}, "Pull request #2 was closed"},
		{"comment on an issue", "issue_comment", func(t *testing.T) map[string]any {
			return payload(t, "issue_comment.created.json", func(ev map[string]any) { obj(ev, "comment")["body"] = "/kyku apply" })
		}, "The comment was ignored"},
		{"comment by a bot", "issue_comment", func(t *testing.T) map[string]any {
			ev := commentEvent(t, 2, "kyku[bot]", "/kyku apply", 9)
			obj(ev, "comment", "user")["type"] = "Bot"
			return ev
		}, "The comment was ignored"},
		{"edited comment", "issue_comment", func(t *testing.T) map[string]any {
			ev := commentEvent(t, 2, "hubot", "/kyku apply", 9)
			ev["action"] = "edited"
			return ev
		}, "The comment was ignored"},
		{"other event", "release", func(t *testing.T) map[string]any { return payload(t, "workflow_dispatch.json", nil) },
			"Event `release` does not trigger Kyku"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			r := f.run(tc.event, tc.ev(t), nil)
			wantCode(t, r, 0)
			if !strings.Contains(r.summary, tc.says) || !strings.Contains(r.stdout, tc.says) {
				t.Errorf("log and summary should say %q;\nlog:\n%s\nsummary:\n%s", tc.says, r.stdout, r.summary)
			}
			for _, req := range f.srv.Requests() {
				if req.Method != "GET" {
					t.Errorf("wrote to GitHub: %s %s", req.Method, req.Path)
				}
			}
			wantOutputs(t, r, map[string]string{"applied": "false", "has-changes": "false"})
		})
	}
}

// TestBadInputsFailWithEveryProblem: invalid inputs are all reported, as
// annotations, before anything runs.
func TestBadInputsFailWithEveryProblem(t *testing.T) {
	f := newFixture(t)
	r := f.run("pull_request", prEvent(t, "pull_request.opened.json", 2, shaA), map[string]string{
		"INPUT_COMMAND": "destroy", "INPUT_COMMENT": "loud", "INPUT_PARALLELISM": "0",
		"INPUT_REQUIRE-APPROVAL": "maybe", "INPUT_WORKING-DIRECTORY": "../elsewhere", "INPUT_ENVIRONMENT": "prod.eu",
		"INPUT_LOCK-TIMEOUT": "soon",
	})
	wantCode(t, r, 1)
	for _, want := range []string{
		`::error::input comment: "loud" is not one of sticky, new, off`,
		`::error::input require-approval: "maybe" is not true or false`,
		`::error::input command: "destroy" is not one of auto, plan, apply, refresh`,
		`::error::input parallelism: "0" is not a positive number`,
		`::error::input lock-timeout: "soon" is not a duration such as 30s or 20m`,
		`::error::inputs working-directory and config: "../elsewhere/infra/kyku.yaml" is outside the repository`,
		`::error::input environment: environment name "prod.eu" is invalid: it holds '.' (use letters, digits, '_' and '-' (not first), at most 64 characters)`,
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("log lacks %s\n%s", want, r.stdout)
		}
	}
	if n := len(f.srv.Requests()); n != 0 {
		t.Errorf("%d API requests with invalid inputs", n)
	}
}

// TestHelpComment: /kyku help is answered with a reply and summarised.
func TestHelpComment(t *testing.T) {
	f := newFixture(t)
	f.addPR(2, shaA)
	f.setCheckout(f.config("web"))
	r := f.run("issue_comment", commentEvent(t, 2, "hubot", "/kyku help", 5005), nil)
	wantCode(t, r, 0)
	comments := f.srv.Comments(repoName, 2)
	if len(comments) != 1 || !strings.Contains(comments[0].Body, "/kyku apply") {
		t.Fatalf("want one help reply, got %+v", comments)
	}
	if !strings.Contains(r.summary, "Kyku answered `/kyku help`") || r.outputs["comment-url"] == "" {
		t.Errorf("summary %q, comment-url %q", r.summary, r.outputs["comment-url"])
	}
}

// TestMissingTokenFails: a same-repository run without a token says what
// to pass, and does not call the API.
func TestMissingTokenFails(t *testing.T) {
	f := newFixture(t)
	r := f.run("schedule", payload(t, "workflow_dispatch.json", nil), map[string]string{"INPUT_GITHUB-TOKEN": ""})
	wantCode(t, r, 1)
	if !strings.Contains(r.stdout, "::error::input github-token is empty") {
		t.Errorf("log:\n%s", r.stdout)
	}
	if n := len(f.srv.Requests()); n != 0 {
		t.Errorf("%d API requests without a token", n)
	}
	_ = githubtest.Token
}

// TestForcedCommands: input command overrides what the event would do.
func TestForcedCommands(t *testing.T) {
	t.Run("plan on workflow_dispatch plans the checkout without commenting", func(t *testing.T) {
		f := newFixture(t)
		f.setCheckout(f.config("web", "worker"))
		r := f.run("workflow_dispatch", payload(t, "workflow_dispatch.json", nil), map[string]string{"INPUT_COMMAND": "plan"})
		wantCode(t, r, 0)
		wantOutputs(t, r, map[string]string{"creates": "2", "has-changes": "true", "comment-url": ""})
		if r.outputs["plan-file"] == "" || !strings.Contains(r.summary, "### Kyku plan for `prod`") {
			t.Errorf("plan-file %q; summary:\n%s", r.outputs["plan-file"], r.summary)
		}
		for _, req := range f.srv.Requests() {
			if req.Method != "GET" {
				t.Errorf("wrote to GitHub: %s %s", req.Method, req.Path)
			}
		}
		noLeak(t, r, r.outputs["plan-file"])
	})
	t.Run("apply on schedule is an error", func(t *testing.T) {
		f := newFixture(t)
		r := f.run("schedule", payload(t, "workflow_dispatch.json", nil), map[string]string{"INPUT_COMMAND": "apply"})
		wantCode(t, r, 1)
		if !strings.Contains(r.stdout, "::error::command apply needs a pull request") {
			t.Errorf("log:\n%s", r.stdout)
		}
	})
	t.Run("refresh on a pull request checks drift", func(t *testing.T) {
		f := newFixture(t)
		f.setCheckout("the pull request's checkout is not read: {")
		f.setRef(defaultRef, f.config("web"))
		f.addPR(2, shaA)
		r := f.run("pull_request", prEvent(t, "pull_request.opened.json", 2, shaA), map[string]string{"INPUT_COMMAND": "refresh"})
		wantCode(t, r, 0)
		wantOutputs(t, r, map[string]string{"drift": "false"})
		if !strings.Contains(r.summary, "no drift in `prod`") {
			t.Errorf("summary:\n%s", r.summary)
		}
	})
}
