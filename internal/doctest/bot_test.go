package doctest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestBotManifestMatchesItsTable: docs/bot/app-manifest.json asks for
// exactly the permissions and events the table of docs/bot.md lists, each
// permission with the access the table gives it, and its webhook is the
// bot's /webhook.
func TestBotManifestMatchesItsTable(t *testing.T) {
	root := repoRoot(t)
	src, err := os.ReadFile(filepath.Join(root, "docs", "bot", "app-manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		URL  string `json:"url"`
		Hook struct {
			URL    string `json:"url"`
			Active bool   `json:"active"`
		} `json:"hook_attributes"`
		Permissions map[string]string `json:"default_permissions"`
		Events      []string          `json:"default_events"`
	}
	if err := json.Unmarshal(src, &m); err != nil {
		t.Fatalf("docs/bot/app-manifest.json: %v", err)
	}
	if !strings.HasSuffix(m.Hook.URL, "/webhook") || !strings.HasPrefix(m.Hook.URL, "https://") || !m.Hook.Active {
		t.Errorf("the manifest's webhook is %q (active %v); want https://…/webhook, active", m.Hook.URL, m.Hook.Active)
	}
	p := readPage(t, root, "docs/bot.md")
	perms := map[string]string{}
	var events []string
	in := false
	for _, line := range p.prose {
		if strings.HasPrefix(line, "#") {
			in = strings.TrimSpace(strings.TrimLeft(line, "#")) == "1. Create the App"
			continue
		}
		if !in || !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(line, "|")
		name, access := strings.Trim(strings.TrimSpace(cells[1]), "`"), strings.TrimSpace(cells[2])
		if access == "event" {
			events = append(events, name)
		} else {
			perms[name] = access
		}
	}
	sort.Strings(events)
	got := append([]string(nil), m.Events...)
	sort.Strings(got)
	if diff := cmp.Diff(perms, m.Permissions); diff != "" {
		t.Errorf("permissions: docs/bot.md's table against the manifest (-table +manifest):\n%s", diff)
	}
	if diff := cmp.Diff(events, got); diff != "" {
		t.Errorf("events: docs/bot.md's table against the manifest (-table +manifest):\n%s", diff)
	}
	if len(perms) == 0 || len(events) == 0 {
		t.Error("docs/bot.md lists no permission or no event under \"1. Create the App\"")
	}
}
