package settings

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/review"
)

func TestParse(t *testing.T) {
	got, err := Parse(Path, []byte(`
execution: actions
workflow: infra.yml
require-approval: false
required-approvals: 2
approver-permission: maintain
plan-permission: triage
apply-permission: maintain
apply: both
comment: new
drift: { enabled: false, write-state: true }
projects:
  - name: network
    config: infra/network
    environments: [staging, prod]
  - name: app
    config: app/kyku.yaml
    autoplan: ["app/**", "modules/*.yaml"]
`))
	if err != nil {
		t.Fatal(err)
	}
	want := &Settings{
		Execution: Actions, Workflow: "infra.yml", RequireApproval: false, ApplyPermission: "maintain",
		RequiredApprovals: 2, ApproverPermission: "maintain", PlanPermission: "triage",
		Apply: review.ApplyOnBoth, Comment: "new", FromFile: true, Drift: Drift{Enabled: false, WriteState: true},
		ConcurrentApplies: true,
		Projects: []Project{
			{Name: "network", Config: "infra/network", Environments: []string{"staging", "prod"}, Autoplan: []string{"infra/network/**"}},
			{Name: "app", Config: "app/kyku.yaml", Environments: []string{""}, Autoplan: []string{"app/**", "modules/*.yaml"}},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("settings (-want +got):\n%s", diff)
	}
	var labels []string
	for _, tg := range got.Touched([]string{"infra/network/vpc.yaml", "README.md"}) {
		labels = append(labels, tg.Label())
	}
	if diff := cmp.Diff([]string{"network/staging", "network/prod"}, labels); diff != "" {
		t.Errorf("touched (-want +got):\n%s", diff)
	}
}

func TestDefaults(t *testing.T) {
	for _, data := range []string{"", "# nothing\n", "comment: sticky\n"} {
		got, err := Parse(Path, []byte(data))
		if err != nil {
			t.Fatal(err)
		}
		d := Defaults()
		d.FromFile = true
		if diff := cmp.Diff(d, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", data, diff)
		}
	}
	d := Defaults()
	if !d.Drift.Enabled || d.Drift.WriteState {
		t.Errorf("default drift = %+v, want enabled and report only", d.Drift)
	}
	if !d.RequireApproval || d.ApplyPermission != "write" || !d.Apply.OnComment() || d.Apply.OnMerge() || d.Execution != InProcess {
		t.Errorf("defaults are not fail-closed: %+v", d)
	}
	if tg := d.Targets(); len(tg) != 1 || tg[0].Label() != "default" || tg[0].Project.Config != "kyku.yaml" {
		t.Errorf("default targets = %+v", tg)
	}
}

// Each case's expected diagnostics sit next to the offending line as
// "# ERROR: <message fragment>".
func TestParseErrors(t *testing.T) {
	for name, src := range map[string]string{
		"unknown and wrong types": `
require-approval: yes please # ERROR: require-approval must be true or false
applyPermission: write       # ERROR: unknown key "applyPermission"
required-approvals: 0        # ERROR: required-approvals must be a number from 1 to 10
apply: always                # ERROR: apply must be one of comment, merge, both
execution: lambda            # ERROR: execution must be one of in-process, actions
workflow: ../evil            # ERROR: workflow must be a workflow file name
`,
		"projects": `
projects:
  - name: a
    config: /etc/passwd      # ERROR: config must be a path inside the repository
    environments: [prod, "bad env"] # ERROR: invalid environment name "bad env"
    colour: blue             # ERROR: unknown key "colour" in project
  - config: b.yaml           # ERROR: every project needs a name
    autoplan: ["[x"]         # ERROR: invalid glob "[x"
  - name: a                  # ERROR: project "a" listed twice
`,
		"drift": `
drift:
  enabled: sometimes         # ERROR: drift.enabled must be true or false
  write_state: true          # ERROR: unknown key "write_state" in drift
`,
		"policy owners and promotion": `
policy-owners:
  - alice
  - "acme/infra owners"      # ERROR: policy owner "acme/infra owners" is not a login or an org/team slug
promotion:
  - staging
  - "../prod"                # ERROR: invalid environment name "../prod" in promotion
  - prod.eu                  # ERROR: invalid environment name "prod.eu" in promotion
  - staging                  # ERROR: environment "staging" listed twice in promotion
`,
		"drift not a mapping": `
drift: true                  # ERROR: drift must be a mapping
`,
		"syntax": `projects: [ # ERROR: invalid YAML`,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Parse(Path, []byte(src))
			var ds diag.Diagnostics
			if !errors.As(err, &ds) {
				t.Fatalf("err = %v, want diagnostics", err)
			}
			lines := strings.Split(src, "\n")
			var want []string
			for _, l := range lines {
				if _, msg, ok := strings.Cut(l, "# ERROR: "); ok {
					want = append(want, msg)
				}
			}
			if len(ds) != len(want) {
				t.Fatalf("got %d diagnostics, want %d:\n%s", len(ds), len(want), err)
			}
			for i, d := range ds {
				if !strings.Contains(d.Message, want[i]) {
					t.Errorf("diagnostic %d = %q, want it to contain %q", i, d.String(), want[i])
				}
				if name != "syntax" {
					if l := lines[d.Pos.Line-1]; !strings.Contains(l, "# ERROR: "+want[i]) && !strings.Contains(l, want[i]) {
						t.Errorf("diagnostic %q at line %d, which is %q", d.Message, d.Pos.Line, l)
					}
				}
			}
		})
	}
}

func TestMatch(t *testing.T) {
	for _, tc := range []struct {
		pattern, name string
		want          bool
	}{
		{"kyku.yaml", "kyku.yaml", true},
		{"kyku.yaml", "sub/kyku.yaml", false},
		{"infra/**", "infra/a/b/c.yaml", true},
		{"infra/**", "infra", true},
		{"infra/**", "infrastructure/x", false},
		{"**/*.yaml", "a.yaml", true},
		{"**/*.yaml", "a/b/c.yaml", true},
		{"**/*.yaml", "a/b/c.yml", false},
		{"modules/*/main.yaml", "modules/vpc/main.yaml", true},
		{"modules/*/main.yaml", "modules/vpc/x/main.yaml", false},
		{"infra/**/*.{yaml,yml}", "infra/net/a.yml", true},
		{"infra/**/*.{yaml,yml}", "infra/net/a.json", false},
		{"{infra,modules}/**", "modules/vpc/main.yaml", true},
		{"infra/[", "infra/[", false}, // a bad pattern matches nothing
	} {
		t.Run(tc.pattern+" "+tc.name, func(t *testing.T) {
			if got := Match(tc.pattern, tc.name); got != tc.want {
				t.Errorf("Match(%q, %q) = %v, want %v", tc.pattern, tc.name, got, tc.want)
			}
		})
	}
}

func TestConfigFiles(t *testing.T) {
	tree := map[string][]byte{"infra/b.yaml": nil, "infra/a.yml": nil, "infra/sub/c.yaml": nil, "infra/notes.txt": nil, "kyku.yaml": nil}
	got, err := Project{Config: "infra"}.ConfigFiles(tree)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"infra/a.yml", "infra/b.yaml"}, got); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if _, err := (Project{Config: "missing.yaml"}).ConfigFiles(tree); err == nil {
		t.Error("a missing config file is not an error")
	}
}

func TestParseDrift(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want Drift
	}{
		{"", Drift{Enabled: true}},
		{"drift: {}\n", Drift{Enabled: true}},
		{"drift: { write-state: true }\n", Drift{Enabled: true, WriteState: true}},
		{"drift: { enabled: false }\n", Drift{Enabled: false}},
	} {
		t.Run(tc.src, func(t *testing.T) {
			got, err := Parse(Path, []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got.Drift); diff != "" {
				t.Errorf("drift (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParsePolicyOwnersAndPromotion(t *testing.T) {
	got, err := Parse(Path, []byte("policy-owners: [alice, acme/infra-owners]\npromotion: [staging, prod]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got.PolicyOwners, ",") != "alice,acme/infra-owners" || strings.Join(got.Promotion, ",") != "staging,prod" {
		t.Errorf("policy owners %v, promotion %v", got.PolicyOwners, got.Promotion)
	}
}
