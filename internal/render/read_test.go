package render

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/value"
)

// readPlan creates an item and updates another, and reads, during apply,
// a data source that depends on the item (its name known, the rest known
// after apply, a sensitive attribute) and one whose configuration refers
// to the item's ID; copy reads the first.
func readPlan() *plan.Plan {
	a := change(plan.Create, "fwtest_item", "a", 0, prop("name", nil, "a"), plan.PropChange{Path: "id", New: value.Unknown, Unknown: true})
	look := change(plan.Read, "fwtest_item", "look", 1,
		plan.PropChange{Path: "id", New: value.Unknown, Unknown: true},
		prop("name", nil, "a"),
		plan.PropChange{Path: "token", New: value.Unknown, Unknown: true, Sensitive: true},
		plan.PropChange{Path: "value", New: value.Unknown, Unknown: true})
	look.Reason, look.Dependencies = "will be read during apply: it depends on a resource with changes pending", []string{"a"}
	byID := change(plan.Read, "fwtest_item", "by-id", 1,
		plan.PropChange{Path: "id", New: value.Unknown, Unknown: true},
		plan.PropChange{Path: "name", New: value.Unknown, Unknown: true})
	byID.Reason, byID.Dependencies = "will be read during apply: its configuration refers to values not yet known", []string{"a"}
	cp := change(plan.Update, "fwtest_item", "copy", 2, plan.PropChange{Path: "value", Old: "v1", New: value.Unknown, Unknown: true})
	cp.ProviderID, cp.Dependencies = "copy-1", []string{"look"}
	return newPlan("prod", a, byID, look, cp)
}

// TestReadDuringApplyRenders: a data source read during apply shows as
// such in the text, the PR comment, --json and the picture: `<= read`,
// why (will be read during apply: …), its attributes known after apply,
// counted apart from the changes.
func TestReadDuringApplyRenders(t *testing.T) {
	p := readPlan()
	if c := p.Counters; c.Read != 2 || c.Create != 1 || c.Update != 1 || !p.HasChanges() {
		t.Fatalf("counters %+v", c)
	}
	var txt bytes.Buffer
	if err := PlanText(&txt, p, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	golden(t, "plan_read.txt.golden", txt.String())
	md := PlanComment(p, meta(), CommentLimit)
	golden(t, "comment_read.md.golden", md)
	var js bytes.Buffer
	if err := PlanJSON(&js, p, JSONOptions{}); err != nil {
		t.Fatal(err)
	}
	golden(t, "plan_read.json.golden", js.String())
	golden(t, "picture_read.mmd.golden", PlanMermaid(p))

	for _, tc := range []struct{ surface, out, want string }{
		{"text", txt.String(), `<= read fwtest_item "look"`},
		{"text", txt.String(), "      # will be read during apply: it depends on a resource with changes pending\n      id: (known after apply)\n      name: a\n"},
		{"text", txt.String(), "      # will be read during apply: its configuration refers to values not yet known"},
		{"text", txt.String(), "      token: (sensitive)"},
		{"text", txt.String(), "1 to create, 1 to update, 0 to replace, 0 to destroy, 0 no-op, 2 to read during apply"},
		{"markdown", md, "<= read fwtest_item \"look\"  (level 1)\n    # will be read during apply: it depends on a resource with changes pending\n"},
		{"markdown", md, "+   value: (known after apply)"},
		{"picture", PlanMermaid(p), `["⇠ look (fwtest_item)"]`},
	} {
		if !strings.Contains(tc.out, tc.want) {
			t.Errorf("%s lacks %q:\n%s", tc.surface, tc.want, tc.out)
		}
	}
	var doc struct {
		Changes []struct {
			Action, ResourceID, Reason string
		}
		Counters map[string]int
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if c := doc.Changes[2]; c.Action != "read" || c.ResourceID != "look" || !strings.HasPrefix(c.Reason, "will be read during apply") || doc.Counters["read"] != 2 {
		t.Errorf("json: %+v, counters %v", c, doc.Counters)
	}
}
