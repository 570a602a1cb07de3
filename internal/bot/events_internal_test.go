package bot

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kyku/action/internal/github/webhooktest"
)

// TestEveryRoutedEventHasAFixture: each event and action in the bot's
// routing table has a payload in testdata/github-events that intake turns
// into a job (ping: answered), so the bot's tests can deliver it.
func TestEveryRoutedEventHasAFixture(t *testing.T) {
	names := webhooktest.Names(t)
	b := &Bot{}
	jobs := map[[2]string]bool{} // event, action → a fixture became a job
	for _, name := range names {
		ev, act := webhooktest.Event(name), webhooktest.Action(name)
		job, ignored, err := b.intake(ev, webhooktest.Payload(t, name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if ignored == "" && job.Run != nil {
			jobs[[2]string{ev, act}] = true
		}
	}
	for ev, actions := range routes {
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
// beside the checkout (../shared/testdata/github-events), intake reads each
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
	b := &Bot{}
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
		job, ignored, err := b.intake(webhooktest.Event(e.Name()), body)
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
