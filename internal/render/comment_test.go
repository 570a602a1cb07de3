package render

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/kyku/action/internal/plan"
)

// longPlan makes a new network and moves a web tier onto it: 12 changes
// (creates, replaces forced by the subnet, a destroy, an update) that
// depend on one another, beside two unchanged resources: past
// FoldChanges.
func longPlan() *plan.Plan {
	cs := []plan.Change{change(plan.Create, "Vpc", "net2", 0, prop("cidr", nil, "10.1.0.0/16"))}
	for i := range 3 {
		cs = append(cs, dependsOn(change(plan.Create, "Subnet", fmt.Sprintf("net2-sub-%d", i), 1,
			prop("cidr", nil, fmt.Sprintf("10.1.%d.0/24", i))), "net2"))
	}
	for i := range 3 {
		vm := dependsOn(change(plan.Replace, "Vm", fmt.Sprintf("web-%d", i), 2,
			plan.PropChange{Path: "subnet", Old: fmt.Sprint(200 + i), New: "(known after apply)", Unknown: true, ForcesReplace: true, ReplaceReason: "a VM stays in its subnet"}),
			fmt.Sprintf("net2-sub-%d", i))
		vm.ProviderID, vm.ReplaceOrder = fmt.Sprint(300+i), plan.DestroyBeforeCreate
		vm.References = map[string]string{"subnet": fmt.Sprintf("net2-sub-%d", i)}
		cs = append(cs, vm)
	}
	old := change(plan.Destroy, "Vm", "web-legacy", 2, prop("size", "small", nil))
	old.ProviderID = "299"
	cs = append(cs, old)
	for i := range 3 {
		cs = append(cs, dependsOn(change(plan.Create, "Vm", fmt.Sprintf("batch-%d", i), 2, prop("size", nil, "large")), "net2-sub-0"))
	}
	lb := dependsOn(change(plan.Update, "LoadBalancer", "web-lb", 3, prop("targets", []any{"300", "301", "302"}, []any{"(known after apply)", "(known after apply)", "(known after apply)"})), "web-0", "web-1", "web-2")
	lb.ProviderID = "lb-1"
	cs = append(cs, lb, change(plan.NoOp, "Vpc", "net", 0), change(plan.NoOp, "SshKey", "ops", 0))
	return newPlan("prod", cs...)
}

// TestCommentGoldens: a long comment (folded, the callout listing every
// destroy and replace, the picture after the changes), and a one-tag
// change among 300 unchanged resources, counted or listed. (A short one
// with destroys, replaces, creates and updates: comment_small.)
func TestCommentGoldens(t *testing.T) {
	show := meta()
	show.ShowUnchanged = true
	golden(t, "comment_long.md.golden", PlanComment(longPlan(), meta(), CommentLimit))
	golden(t, "comment_one_tag.md.golden", PlanComment(oneTagPlan(), meta(), CommentLimit))
	golden(t, "comment_one_tag_show_unchanged.md.golden", PlanComment(oneTagPlan(), show, CommentLimit))
}

// creates is a plan of n creates of props properties each.
func creates(n, props int) *plan.Plan {
	var cs []plan.Change
	for i := range n {
		var pcs []plan.PropChange
		for j := range props {
			pcs = append(pcs, prop(fmt.Sprintf("p%02d", j), nil, "v"))
		}
		cs = append(cs, change(plan.Create, "Vm", fmt.Sprintf("vm-%02d", i), 1, pcs...))
	}
	return newPlan("prod", cs...)
}

// TestCommentFoldsOnlyWhenLong: a plan's changes are open up to
// FoldChanges changes and FoldLines lines, folded past either.
func TestCommentFoldsOnlyWhenLong(t *testing.T) {
	tests := []struct {
		name   string
		p      *plan.Plan
		folded bool
	}{
		{"10 changes of 4 lines", creates(FoldChanges, 3), false},
		{"11 changes", creates(FoldChanges+1, 1), true},
		{"40 lines", creates(4, 9), false},
		{"41 lines", creates(1, FoldLines), true},
		{"long, with destroys", longPlan(), true},
		{"short, with destroys", fullPlan(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := PlanComment(tt.p, meta(), CommentLimit)
			if folded := strings.Contains(got, "<details>"); folded != tt.folded {
				t.Errorf("folded %v, want %v:\n%s", folded, tt.folded, got)
			}
		})
	}
}

// headLine matches the first line of a change in a comment's diff.
var headLine = regexp.MustCompile(`(?m)^(\+ create|~ update|± replace|- destroy|- forget) `)

// TestCommentLeadsWithDestroysAndReplaces: every destroy and replace is
// shown before any other change, under its heading and callout; a long
// plan's callout lists each, a short one's counts them.
func TestCommentLeadsWithDestroysAndReplaces(t *testing.T) {
	for name, tc := range map[string]struct {
		p      *plan.Plan
		listed bool
	}{"short": {fullPlan(), false}, "long": {longPlan(), true}} {
		t.Run(name, func(t *testing.T) {
			got := PlanComment(tc.p, meta(), CommentLimit)
			heads := headLine.FindAllString(got, -1)
			danger := tc.p.Counters.Destroy + tc.p.Counters.Replace
			for i, h := range heads {
				isDanger := strings.HasPrefix(h, "± replace") || strings.HasPrefix(h, "- destroy")
				if isDanger != (i < danger) {
					t.Errorf("change %d (%q) out of order: %q", i, h, heads)
				}
			}
			section := strings.Index(got, "#### ⚠ Destroys and replaces\n\n> [!CAUTION]\n> This plan destroys")
			if section < 0 || section > strings.Index(got, "```diff") {
				t.Errorf("the destroys and replaces do not lead:\n%s", got)
			}
			if listed := strings.Contains(got, "> - **destroy** Vm"); listed != tc.listed {
				t.Errorf("callout lists them %v, want %v:\n%s", listed, tc.listed, got)
			}
		})
	}
}

// TestPictureOnlyWhenItHelps: the picture comes after the changes, and
// only for a plan that changes more than values in place and whose
// changed resources depend on one another.
func TestPictureOnlyWhenItHelps(t *testing.T) {
	updates := newPlan("prod",
		change(plan.Update, "Vpc", "net", 0, prop("tags.a", "1", "2")),
		dependsOn(change(plan.Update, "Vm", "web", 1, prop("size", "small", "large")), "net"))
	apart := newPlan("prod",
		change(plan.NoOp, "Vpc", "net", 0),
		dependsOn(change(plan.Create, "Vm", "web", 1), "net"),
		dependsOn(change(plan.Create, "Vm", "db", 1), "net"))
	tests := []struct {
		name  string
		p     *plan.Plan
		shown bool
	}{
		{"a tier on a new network", longPlan(), true},
		{"a replace and what depends on it", cbdPlan(), true},
		{"creates on an unchanged network", smallGraphPlan(), true},
		{"updates only", updates, false},
		{"creates that depend only on what stays", apart, false},
		{"no dependencies", fullPlan(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := PlanComment(tt.p, meta(), CommentLimit)
			at := strings.Index(got, "```mermaid")
			if (at >= 0) != tt.shown {
				t.Fatalf("picture shown %v, want %v:\n%s", at >= 0, tt.shown, got)
			}
			if last := strings.LastIndex(got, "```diff"); at >= 0 && at < last {
				t.Errorf("the picture comes before the changes:\n%s", got)
			}
		})
	}
}

// TestPictureDroppedFirst: a comment over its limit drops the picture
// before any change.
func TestPictureDroppedFirst(t *testing.T) {
	full := PlanComment(longPlan(), meta(), CommentLimit)
	cut := PlanComment(longPlan(), meta(), len(full)-1)
	if strings.Contains(cut, "```mermaid") {
		t.Errorf("the picture stayed:\n%s", cut)
	}
	if got, want := len(headLine.FindAllString(cut, -1)), len(headLine.FindAllString(full, -1)); got != want {
		t.Errorf("%d changes shown, want all %d:\n%s", got, want, cut)
	}
}

// TestCommentUnchanged: unchanged resources are one count line, or with
// Meta.ShowUnchanged one line each (folded past FoldChanges).
func TestCommentUnchanged(t *testing.T) {
	show := meta()
	show.ShowUnchanged = true
	few := newPlan("prod", change(plan.Create, "Vpc", "v", 0), change(plan.NoOp, "Vm", "a", 1), change(plan.NoOp, "Vm", "b", 1))
	tests := []struct {
		name      string
		p         *plan.Plan
		m         Meta
		count     string
		listed    int
		folded    bool
		noneShown bool
	}{
		{"300, counted", oneTagPlan(), meta(), "✓ 300 unchanged resources not shown.\n", 0, false, false},
		{"300, listed", oneTagPlan(), show, "", 300, true, false},
		{"2, listed", few, show, "", 2, false, false},
		{"no changes", newPlan("prod", change(plan.NoOp, "Vm", "a", 1)), show, "", 0, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := PlanComment(tt.p, tt.m, CommentLimit)
			if tt.count != "" && !strings.Contains(got, tt.count) {
				t.Errorf("no count line %q:\n%s", tt.count, got)
			}
			if tt.count == "" && strings.Contains(got, "not shown") {
				t.Errorf("a count line beside the list:\n%s", got)
			}
			if n := strings.Count(got, "\n✓ no-op Vm "); n != tt.listed {
				t.Errorf("%d listed, want %d:\n%s", n, tt.listed, got)
			}
			if folded := strings.Contains(got, "<details><summary>"+plural(tt.listed, "unchanged resource")); folded != tt.folded {
				t.Errorf("folded %v, want %v", folded, tt.folded)
			}
			if tt.noneShown && (strings.Contains(got, "✓ no-op") || strings.Contains(got, "not shown")) {
				t.Errorf("a plan without changes lists its unchanged resources:\n%s", got)
			}
		})
	}
}
