package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kyku/action/internal/plan"
)

func planText(t *testing.T, p *plan.Plan, opts TextOptions) string {
	t.Helper()
	var b bytes.Buffer
	if err := PlanText(&b, p, opts); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// The seed's example, character for character.
func TestPlanTextMatchesSeed(t *testing.T) {
	p := newPlan("",
		change(plan.Create, "Vpc", "main-vpc", 0),
		change(plan.Create, "SecurityGroup", "web-sg", 1),
		change(plan.Create, "Vm", "web-server", 2),
		change(plan.Update, "LoadBalancer", "web-lb", 3, prop("port", 80, 443)),
		change(plan.Destroy, "Vm", "old-worker", 2),
		change(plan.NoOp, "Database", "app-db", 1))
	p.Counters.NoOp = 2 // the seed counts two no-ops but lists one
	want := `Plan: 3 to create, 1 to update, 0 to replace, 1 to destroy, 2 no-op

Changes:
  + create Vpc "main-vpc"                    (level 0)
  + create SecurityGroup "web-sg"            (level 1)
  + create Vm "web-server"                   (level 2)
  ~ update LoadBalancer "web-lb"             (level 3)
      port: 80 → 443
  - destroy Vm "old-worker"                  (level 2)
  ✓ no-op Database "app-db"
`
	if diff := cmp.Diff(want, planText(t, p, TextOptions{ShowNoOp: true})); diff != "" {
		t.Errorf("seed format (-want +got):\n%s", diff)
	}
}

func TestPlanTextGolden(t *testing.T) {
	long := change(plan.Create, "SecurityGroup", "a-security-group-with-a-very-long-name", 1)
	tests := []struct {
		name string
		p    *plan.Plan
		opts TextOptions
	}{
		{"plan_all_actions.txt.golden", fullPlan(), TextOptions{ShowNoOp: true}},
		{"plan_all_actions_verbose.txt.golden", fullPlan(), TextOptions{ShowNoOp: true, Verbose: true}},
		{"plan_color.txt.golden", fullPlan(), TextOptions{Color: true}},
		{"plan_create_before_destroy.txt.golden", cbdPlan(), TextOptions{}},
		{"plan_no_changes.txt.golden", newPlan("prod", change(plan.NoOp, "Vpc", "main-vpc", 0)), TextOptions{ShowNoOp: true}},
		{"plan_wide.txt.golden", newPlan("", change(plan.Create, "Vpc", "v", 0), long), TextOptions{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			golden(t, tt.name, planText(t, tt.p, tt.opts))
		})
	}
}

func TestPlanTextBehaviour(t *testing.T) {
	full := planText(t, fullPlan(), TextOptions{ShowNoOp: true})
	quiet := planText(t, fullPlan(), TextOptions{})
	verbose := planText(t, fullPlan(), TextOptions{Verbose: true})
	color := planText(t, fullPlan(), TextOptions{Color: true})
	tests := []struct {
		name string
		got  string
		want string // a line (or part) that must be present
		not  bool   // ...or absent
	}{
		{"replace symbol", full, `  ± replace Vm "web"`, false},
		{"forces replacement", full, "      image: debian-11 → debian-12  # forces replacement", false},
		{"sensitive masked", full, "      userData: (sensitive) → (sensitive)  # forces replacement", false},
		{"unknown new value", full, "      subnet: 101 → (known after apply)", false},
		{"a map as a block, line by line", full, "      tags: {\n        - team: web\n        + team: edge\n        + tier: front\n      }\n", false},
		{"reason shown", full, "      # gone from the cloud", false},
		{"forget listed", full, `  - forget SshKey "old-key"`, false},
		{"forget counted", full, ", 1 to forget", false},
		{"no-op shown", full, `  ✓ no-op Database "app-db"`, false},
		{"no-op hidden", quiet, "no-op Database", true},
		{"create props shown", full, "  + create Vpc \"main-vpc\"                    (level 0)\n      cidr: 10.0.0.0/16\n      distributeAcrossAzs: 2\n", false},
		{"create unknown shown", full, "      network: (known after apply)", false},
		{"destroy props hidden", full, "      size: small\n", true},
		{"create props verbose", verbose, "      cidr: 10.0.0.0/16", false},
		{"create unknown verbose", verbose, "      network: (known after apply)", false},
		{"destroy props verbose", verbose, "      size: small\n", false},
		{"no colour by default", full, "\x1b[", true},
		{"create green", color, "  \x1b[32m+ create Vpc \"main-vpc\"\x1b[0m", false},
		{"update yellow", color, "\x1b[33m~ update", false},
		{"replace magenta", color, "\x1b[35m± replace", false},
		{"destroy red", color, "\x1b[31m- destroy", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := strings.Contains(tt.got, tt.want); got == tt.not {
				t.Errorf("contains %q = %v, want %v; output:\n%s", tt.want, got, !tt.not, tt.got)
			}
		})
	}
}

func TestPlanTextNoChanges(t *testing.T) {
	got := planText(t, newPlan("prod", change(plan.NoOp, "Vpc", "main-vpc", 0)), TextOptions{ShowNoOp: true})
	want := "Plan: 0 to create, 0 to update, 0 to replace, 0 to destroy, 1 no-op\n\n" +
		"No changes. Infrastructure matches the configuration.\n"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestPlanTextEscapesControlCharacters(t *testing.T) {
	p := newPlan("", change(plan.Update, "Vm", "web", 0, prop("userData", "a\rb", "\x1b[2Jc"), prop("script", "x\x1b[2J\ny", "x\x1b[2J\ny\tz")))
	got := planText(t, p, TextOptions{})
	if !strings.Contains(got, `      userData: a\rb → \x1b[2Jc`) || strings.Contains(got, "\x1b") {
		t.Errorf("control characters not escaped:\n%q", got)
	}
	// In a heredoc too, line by line.
	if !strings.Contains(got, "      script: <<-EOT\n          x\\x1b[2J\n        - y\n        + y\\tz\n      EOT\n") {
		t.Errorf("control characters in a heredoc:\n%s", got)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errTest }

func TestPlanTextWriteError(t *testing.T) {
	if err := PlanText(failWriter{}, fullPlan(), TextOptions{}); err == nil {
		t.Fatal("want an error from a failing writer")
	}
}

// Levels line up in one column, however long the longest head is, and the
// column is never narrower than the seed's.
func TestPlanTextLevelsAligned(t *testing.T) {
	tests := []struct {
		name string
		p    *plan.Plan
		col  int // rune index of "(level" in every change line
	}{
		{"seed width", fullPlan(), 45},
		{"wider", newPlan("", change(plan.Create, "Vpc", "v", 0),
			change(plan.Create, "SecurityGroup", "a-security-group-with-a-very-long-name", 1)), 66},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, line := range strings.Split(planText(t, tt.p, TextOptions{}), "\n") {
				i := strings.Index(line, "(level")
				if i < 0 {
					continue
				}
				if got := len([]rune(line[:i])); got != tt.col {
					t.Errorf("%q: level at column %d, want %d", line, got, tt.col)
				}
			}
		})
	}
}
