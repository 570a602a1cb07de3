package action

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kyku/action/internal/github/webhooktest"
)

// TestEveryRoutedEventHasAFixture: each event the Action acts on (its
// dispatch table) and each pull_request action that plans has a payload in
// testdata/github-events, so its tests can deliver it.
func TestEveryRoutedEventHasAFixture(t *testing.T) {
	names := webhooktest.Names(t)
	for ev := range eventHandlers() {
		if !webhooktest.Covers(names, ev, "") {
			t.Errorf("the Action handles %s but testdata/github-events has no %s*.json", ev, ev)
		}
	}
	for act := range planActions() {
		if !webhooktest.Covers(names, "pull_request", act) {
			t.Errorf("the Action plans on pull_request %s but testdata/github-events has no pull_request.%s*.json", act, act)
		}
	}
}

// checkEvent says what the Action's handler for event would miss in ev.
func checkEvent(event string, ev *event) []string {
	var missing []string
	switch event {
	case "pull_request", "pull_request_target":
		if ev.PullRequest == nil || ev.PullRequest.Number == 0 || ev.PullRequest.Head.SHA == "" || ev.PullRequest.Base.Repo.FullName == "" {
			missing = append(missing, "pull_request (number, head.sha, base.repo.full_name)")
		}
	case "issue_comment":
		if ev.Issue == nil || ev.Issue.Number == 0 || ev.Comment == nil || ev.Comment.ID == 0 || ev.Comment.User.Login == "" {
			missing = append(missing, "issue.number and comment (id, user.login)")
		}
	case "push":
		if ev.Ref == "" || ev.After == "" {
			missing = append(missing, "ref and after")
		}
	}
	return missing
}

// TestFixturesDecode: every fixture decodes with the Action's own event
// reader and holds what the handler of its event reads.
func TestFixturesDecode(t *testing.T) {
	for _, name := range webhooktest.Names(t) {
		t.Run(name, func(t *testing.T) {
			ev, err := readEvent(webhooktest.Path(t, name))
			if err != nil {
				t.Fatal(err)
			}
			if m := checkEvent(webhooktest.Event(name), ev); len(m) > 0 {
				t.Errorf("missing %v", m)
			}
			if _, routed := eventHandlers()[webhooktest.Event(name)]; routed {
				if ev.Repository.FullName == "" || ev.Repository.DefaultBranch == "" || ev.Sender.Login == "" {
					t.Errorf("missing repository.full_name, repository.default_branch or sender.login: %+v", ev)
				}
			}
		})
	}
}

// TestSharedPayloadsDecode: where GitHub's published example payloads sit
// beside the checkout (../shared/testdata/github-events), each one decodes
// with the Action's event reader, and those of events the Action handles
// hold what it reads. Skipped when they are not there.
func TestSharedPayloadsDecode(t *testing.T) {
	dir := webhooktest.Shared()
	if dir == "" {
		t.Skip("no ../shared/testdata/github-events beside the checkout: nothing to cross-check (the repository's own fixtures are tested anyway)")
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if filepath.Ext(e.Name()) != ".json" {
			continue
		}
		n++
		t.Run(e.Name(), func(t *testing.T) {
			ev, err := readEvent(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if m := checkEvent(webhooktest.Event(e.Name()), ev); len(m) > 0 {
				t.Errorf("missing %v", m)
			}
		})
	}
	if n == 0 {
		t.Fatalf("%s holds no .json payloads", dir)
	}
	t.Logf("decoded %d payloads from %s", n, dir)
}
