package webhooktest_test

import (
	"testing"

	"github.com/kyku/action/internal/github/webhooktest"
)

// TestNamesResolve: the names the tests of the Action and the bot load
// (with or without ".json", qualified as GitHub's example sets are) all
// resolve to a fixture.
func TestNamesResolve(t *testing.T) {
	names := webhooktest.Names(t)
	for name, want := range map[string]string{
		"pull_request.opened":                     "pull_request.opened.json",
		"pull_request.opened.json":                "pull_request.opened.json",
		"pull_request.opened.with-organization":   "pull_request.opened.json",
		"pull_request.synchronize.json":           "pull_request.synchronize.json",
		"pull_request.closed":                     "pull_request.closed.json",
		"pull_request.closed.json":                "pull_request.closed.json",
		"issue_comment.created.json":              "issue_comment.created.json",
		"issue_comment.created.with-installation": "issue_comment.created.json",
		"push.json":                                            "push.json",
		"push.with-installation":                               "push.json",
		"workflow_dispatch.json":                               "workflow_dispatch.json",
		"issue_comment.created.1":                              "issue_comment.created.json",
		"workflow_run.completed.with-pull-requests.json":       "workflow_run.completed.json",
		"pull_request.converted_to_draft.with-installation":    "pull_request.converted_to_draft.json",
		"pull_request.ready_for_review.with-installation.json": "pull_request.ready_for_review.json",
	} {
		got, ok := webhooktest.Resolve(name, names)
		if !ok || got != want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", name, got, ok, want)
		}
	}
	for _, name := range []string{"pull_request.edited", "release.json", "push.x", "pull_request.closed.merged.1.with-x"} {
		if got, ok := webhooktest.Resolve(name, names); ok {
			t.Errorf("Resolve(%q) = %q, want no fixture", name, got)
		}
	}
}

// TestFixturesAreWholeDeliveries: every fixture is a JSON object with the
// envelope GitHub puts on a delivery (sender, organization, installation,
// and the repository, for events about one), an action matching its file
// name, and the repository the tests seed (Codertocat/Hello-World on
// master).
func TestFixturesAreWholeDeliveries(t *testing.T) {
	// Events whose documented schema has no repository or installation.
	noRepo := map[string]bool{"installation": true, "ping": true}
	noInstallationOrg := map[string]bool{"ping": true}
	for _, name := range webhooktest.Names(t) {
		t.Run(name, func(t *testing.T) {
			p := webhooktest.Decode(t, name, nil)
			ev, act := webhooktest.Event(name), webhooktest.Action(name)
			str := func(path ...string) string {
				var v any = p
				for _, k := range path {
					m, ok := v.(map[string]any)
					if !ok {
						return ""
					}
					v = m[k]
				}
				s, _ := v.(string)
				return s
			}
			if str("sender", "login") == "" || str("sender", "type") == "" {
				t.Error("no sender.login or sender.type")
			}
			if !noInstallationOrg[ev] {
				if id, _ := p["installation"].(map[string]any)["id"].(float64); id != 1 {
					t.Errorf("installation.id = %v, want 1 (the installation the bot's tests seed)", p["installation"])
				}
				if str("organization", "login") == "" {
					t.Error("no organization.login")
				}
			}
			if !noRepo[ev] {
				if got := str("repository", "full_name"); got != "Codertocat/Hello-World" {
					t.Errorf("repository.full_name = %q, want Codertocat/Hello-World", got)
				}
				if str("repository", "owner", "login") != "Codertocat" || str("repository", "name") != "Hello-World" || str("repository", "default_branch") != "master" {
					t.Error("repository.owner.login, name or default_branch is not Codertocat, Hello-World, master")
				}
			}
			if got, _ := p["action"].(string); act != "" && got != act {
				t.Errorf("action = %q, want %q (from the file name)", got, act)
			}
		})
	}
}
