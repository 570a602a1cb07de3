package render

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/value"
)

// refsPlan creates a Vm whose values came from references, known and
// not yet known, in a list, a map and a whole list, and updates a load
// balancer's subnet to one not yet known; a secret read by reference
// names nothing.
func refsPlan() *plan.Plan {
	u := value.Unknown
	vm := change(plan.Create, "Vm", "web", 2,
		prop("image", nil, "debian-12"),
		plan.PropChange{Path: "network", New: "vpc-123"},
		unknownProp("securityGroups", nil, []any{"sg-1", u}),
		unknownProp("subnet", nil, u),
		prop("tags", nil, map[string]any{"name": "web-vpc-123", "team": "edge"}),
		prop("zones", nil, []any{"a", "b"}),
		plan.PropChange{Path: "userData", New: secret, Sensitive: true})
	vm.References = map[string]string{
		"network": "main-vpc", "securityGroups[0]": "web-sg", "securityGroups[1]": "admin-sg",
		"subnet": "main-vpc-subnet-public-0", "tags.name": "main-vpc.name", "zones": "region.zones",
		"userData": "db.password",
	}
	lb := change(plan.Update, "LoadBalancer", "web-lb", 3, unknownProp("subnet", "subnet-1", u))
	lb.ProviderID, lb.References = "lb-1", map[string]string{"subnet": "module.net.aws_subnet.public[0].id"}
	return newPlan("prod", vm, lb)
}

func TestReferencesGolden(t *testing.T) {
	golden(t, "plan_references.txt.golden", planText(t, refsPlan(), TextOptions{}))
	golden(t, "comment_references.md.golden", PlanComment(refsPlan(), meta(), CommentLimit))
}

// TestReferencesShown: a value that came from a reference names it, in
// the plan text (propLines) and the comment's diff (diffLines).
func TestReferencesShown(t *testing.T) {
	u := value.Unknown
	tests := []struct {
		name       string
		a          plan.Action
		pc         plan.PropChange
		refs       map[string]string
		text, diff string
	}{
		{
			name: "known", a: plan.Create, pc: prop("network", nil, "vpc-123"), refs: map[string]string{"network": "main-vpc"},
			text: "network: vpc-123 (main-vpc)",
			diff: "+ network: vpc-123 (main-vpc)\n",
		},
		{
			name: "known after apply", a: plan.Create, pc: unknownProp("network", nil, u), refs: map[string]string{"network": "vpc.main.id"},
			text: "network: (known after apply: vpc.main.id)",
			diff: "+ network: (known after apply: vpc.main.id)\n",
		},
		{
			name: "an update, forcing a replace", a: plan.Replace,
			pc:   plan.PropChange{Path: "network", Old: "vpc-1", New: u, Unknown: true, ForcesReplace: true},
			refs: map[string]string{"network": "main-vpc"},
			text: "network: vpc-1 → (known after apply: main-vpc)  # forces replacement",
			diff: "- network: vpc-1\n+ network: (known after apply: main-vpc)  # forces replacement\n",
		},
		{
			name: "an entry of a map, by its path", a: plan.Update, pc: prop("tags.vpc", "vpc-1", "vpc-2"), refs: map[string]string{"tags.vpc": "main-vpc"},
			text: "tags.vpc: vpc-1 → vpc-2 (main-vpc)",
			diff: "- tags.vpc: vpc-1\n+ tags.vpc: vpc-2 (main-vpc)\n",
		},
		{
			name: "elements of a list", a: plan.Create, pc: unknownProp("groups", nil, []any{"sg-1", u, "sg-3"}),
			refs: map[string]string{"groups[0]": "web-sg", "groups[1]": "admin-sg"},
			text: "groups: [\n    sg-1 (web-sg),\n    (known after apply: admin-sg),\n    sg-3,\n]",
			diff: "+ groups: [\n+     sg-1 (web-sg),\n+     (known after apply: admin-sg),\n+     sg-3,\n+ ]\n",
		},
		{
			name: "a list that grows, compared without them", a: plan.Update, pc: prop("groups", []any{"sg-1"}, []any{"sg-1", "sg-2"}),
			refs: map[string]string{"groups[0]": "web-sg", "groups[1]": "admin-sg"},
			text: "groups: [\n    sg-1 (web-sg),\n  + sg-2 (admin-sg),\n]",
			diff: "  groups: [\n      sg-1 (web-sg),\n+     sg-2 (admin-sg),\n  ]\n",
		},
		{
			name: "a whole list", a: plan.Create, pc: prop("zones", nil, []any{"a", "b"}), refs: map[string]string{"zones": "region.zones"},
			text: "zones: [  # region.zones\n    a,\n    b,\n]",
			diff: "+ zones: [  # region.zones\n+     a,\n+     b,\n+ ]\n",
		},
		{
			name: "a map in a map", a: plan.Create, pc: prop("spec", nil, map[string]any{"net": map[string]any{"id": "vpc-1"}}),
			refs: map[string]string{"spec.net": "vpc.config", "spec.net.id": "vpc"},
			text: "spec: {\n    net: {  # vpc.config\n        id: vpc-1 (vpc)\n    }\n}",
			diff: "+ spec: {\n+     net: {  # vpc.config\n+         id: vpc-1 (vpc)\n+     }\n+ }\n",
		},
		{
			name: "a string of several lines", a: plan.Create, pc: prop("cert", nil, "a\nb\n"), refs: map[string]string{"cert": "tls.cert_pem"},
			text: "cert: <<-EOT  # tls.cert_pem\n    a\n    b\nEOT",
			diff: "+ cert: <<-EOT  # tls.cert_pem\n+     a\n+     b\n+ EOT\n",
		},
		{
			name: "several references interpolated", a: plan.Create, pc: prop("name", nil, "web-1-vpc-9"), refs: map[string]string{"name": "web.index, main-vpc"},
			text: "name: web-1-vpc-9 (web.index, main-vpc)",
			diff: "+ name: web-1-vpc-9 (web.index, main-vpc)\n",
		},
		{
			name: "any address", a: plan.Create, pc: unknownProp("subnet", nil, u), refs: map[string]string{"subnet": `module.net.aws_subnet.public["a"].id`},
			text: `subnet: (known after apply: module.net.aws_subnet.public["a"].id)`,
			diff: "+ subnet: (known after apply: module.net.aws_subnet.public[\"a\"].id)\n",
		},
		{
			name: "a secret names none", a: plan.Create,
			pc: plan.PropChange{Path: "password", New: secret, Sensitive: true}, refs: map[string]string{"password": "db.password"},
			text: "password: (sensitive)",
			diff: "+ password: (sensitive)\n",
		},
		{
			name: "nor does a secret's entry", a: plan.Create,
			pc: plan.PropChange{Path: "auth", New: map[string]any{"token": secret}, Sensitive: true}, refs: map[string]string{"auth.token": "vault.token"},
			text: "auth: (sensitive)",
			diff: "+ auth: (sensitive)\n",
		},
		{
			name: "a destroy's old value names none", a: plan.Destroy, pc: prop("network", "vpc-1", nil), refs: map[string]string{"network": "main-vpc"},
			text: "network: vpc-1",
			diff: "- network: vpc-1\n",
		},
		{
			name: "nor a destroy's old block", a: plan.Destroy, pc: prop("cert", "a\nb", nil), refs: map[string]string{"cert": "tls.cert_pem"},
			text: "cert: <<-EOT\n    a\n    b\nEOT",
			diff: "- cert: <<-EOT\n-     a\n-     b\n- EOT\n",
		},
		{
			name: "control characters escaped", a: plan.Create, pc: prop("network", nil, "vpc-1"), refs: map[string]string{"network": "a\n```\x1b[2J"},
			text: "network: vpc-1 (a\\n```\\x1b[2J)",
			diff: "+ network: vpc-1 (a\\n```\\x1b[2J)\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.text, strings.Join(propLines(tt.a, tt.pc, tt.refs), "\n")); diff != "" {
				t.Errorf("text (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.diff, diffLines(tt.a, tt.pc, tt.refs)); diff != "" {
				t.Errorf("comment (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReferenceCutInTheComment: a long reference is cut as a value is.
func TestReferenceCutInTheComment(t *testing.T) {
	long := strings.Repeat("m", 2*maxCell)
	got := diffLines(plan.Create, prop("network", nil, "vpc-1"), map[string]string{"network": long})
	if want := "+ network: vpc-1 (" + long[:maxCell-1] + "…)\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestRedactPlanKeepsReferences: plan.json keeps the references (names
// from the configuration, never a secret's), in a copy of its own.
func TestRedactPlanKeepsReferences(t *testing.T) {
	p := refsPlan()
	r := RedactPlan(p)
	if diff := cmp.Diff(p.Changes[0].References, r.Changes[0].References); diff != "" {
		t.Errorf("references (-plan +redacted):\n%s", diff)
	}
	r.Changes[0].References["network"] = "changed"
	if p.Changes[0].References["network"] != "main-vpc" {
		t.Error("the redacted plan shares the plan's references")
	}
}
