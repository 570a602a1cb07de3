package bot

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kyku/action/internal/github/webhooktest"
)

// TestEveryRoutedEventHasAFixture: each event and action in the bot's
// routing table has a payload in testdata/github-events that the router turns
// into a job (ping: answered), so the bot's tests can deliver it.
func TestEveryRoutedEventHasAFixture(t *testing.T) {
	names := webhooktest.Names(t)
	rt := &router{}
	jobs := map[[2]string]bool{} // event, action → a fixture became a job
	for _, name := range names {
		ev, act := webhooktest.Event(name), webhooktest.Action(name)
		job, ignored, err := rt.route(ev, webhooktest.Payload(t, name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if ignored == "" && job.Run != nil {
			jobs[[2]string{ev, act}] = true
		}
	}
	for ev, actions := range routes() {
		if actions == nil {
			if !webhooktest.Covers(names, ev, "") {
				t.Errorf("the bot routes %s but testdata/github-events has no %s*.json", ev, ev)
			}
			continue
		}
		for _, act := range actions {
			if !jobs[[2]string{ev, act}] {
				t.Errorf("the bot routes %s %s but no fixture %s.%s*.json becomes a job", ev, act, ev, act)
			}
		}
	}
}

// TestSharedPayloadsDecode: where GitHub's published example payloads sit
// beside the checkout (../shared/testdata/github-events), the router reads each
// one (the event name is the file name's first part) without a decoding
// error. Skipped when they are not there.
func TestSharedPayloadsDecode(t *testing.T) {
	dir := webhooktest.Shared()
	if dir == "" {
		t.Skip("no ../shared/testdata/github-events beside the checkout: nothing to cross-check (the repository's own fixtures are tested anyway)")
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	rt := &router{}
	n, queued := 0, 0
	for _, e := range entries {
		if filepath.Ext(e.Name()) != ".json" {
			continue
		}
		n++
		body, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		job, ignored, err := rt.route(webhooktest.Event(e.Name()), body)
		if err != nil {
			t.Errorf("%s: %v", e.Name(), err)
			continue
		}
		if ignored == "" && job.Run != nil {
			queued++
		}
		t.Logf("%s: job %q, ignored %q", e.Name(), job.Kind, ignored)
	}
	if n == 0 {
		t.Fatalf("%s holds no .json payloads", dir)
	}
	if queued == 0 {
		t.Errorf("none of the %d payloads became a job: intake reads none of GitHub's shapes", n)
	}
}

// TestUnroutedActionsAreIgnored: deliveries of actions outside the routing
// table never become jobs, whatever they carry: an edited or deleted
// comment reading "/kyku apply", a pull request turned into a draft or
// closed without a merge, another repository_dispatch type.
func TestUnroutedActionsAreIgnored(t *testing.T) {
	rt := &router{}
	for _, tc := range []struct{ event, fixture, action, says string }{
		{"issue_comment", "issue_comment.edited", "", "issue_comment edited is not handled"},
		{"issue_comment", "issue_comment.deleted", "", "issue_comment deleted is not handled"},
		{"issue_comment", "issue_comment.created.on-pull-request", "edited", "issue_comment edited is not handled"},
		{"pull_request", "pull_request.converted_to_draft", "", "pull_request converted_to_draft is not handled"},
		{"pull_request", "pull_request.opened", "labeled", "pull_request labeled is not handled"},
		{"pull_request", "pull_request.closed", "", "pull_request closed without a merge"},
		{"repository_dispatch", "repository_dispatch.kyku-drift", "deploy", "repository_dispatch deploy is not handled"},
		{"check_run", "check_run.rerequested", "", "event check_run is not handled"},
		{"workflow_run", "workflow_run.completed", "", "workflow_run: 0 dispatched runs looked at again"}, // a hint to watchers, never a job
	} {
		t.Run(tc.fixture+" "+tc.action, func(t *testing.T) {
			p := webhooktest.Decode(t, tc.fixture, func(p map[string]any) {
				if tc.action != "" {
					p["action"] = tc.action
				}
			})
			body, err := json.Marshal(p)
			if err != nil {
				t.Fatal(err)
			}
			job, ignored, err := rt.route(tc.event, body)
			if err != nil || job.Run != nil || !strings.HasPrefix(ignored, tc.says) {
				t.Errorf("intake = job %q, ignored %q, err %v; want ignored %q", job.Kind, ignored, err, tc.says)
			}
		})
	}
}
