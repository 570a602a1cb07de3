package render

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/value"
)

// nestedPlan creates a security group with nested rules, a map whose keys
// are not all words and a script inside a nested block; it updates a
// list that grows and a map that loses an entry, and destroys a nested
// value (shown when verbose).
func nestedPlan() *plan.Plan {
	sg := change(plan.Create, "SecurityGroup", "web-sg", 1,
		prop("ingress", nil, []any{
			map[string]any{"cidr": "0.0.0.0/0", "ports": []any{80, 443}, "protocol": "tcp"},
			map[string]any{"cidr": "10.0.0.0/16", "ports": []any{22}, "protocol": "tcp", "options": map[string]any{}},
		}),
		prop("tags", nil, map[string]any{"env": "prod", "kubernetes.io/role": "web", "cost center": "42"}),
		prop("init", nil, map[string]any{"script": "#!/bin/sh\necho hello\n", "shell": "sh"}))
	vm := change(plan.Update, "Vm", "web", 2,
		prop("securityGroups", []any{"sg-1"}, []any{"sg-1", "sg-2"}),
		prop("labels", map[string]any{"a": "1", "b": "2"}, map[string]any{"a": "1"}))
	vm.ProviderID = "i-100"
	old := change(plan.Destroy, "Vm", "old", 2, prop("disks", []any{map[string]any{"size": 20}}, nil))
	old.ProviderID = "i-17"
	return newPlan("prod", sg, vm, old)
}

func TestNestedValuesGolden(t *testing.T) {
	golden(t, "plan_nested.txt.golden", planText(t, nestedPlan(), TextOptions{Verbose: true}))
	golden(t, "comment_nested.md.golden", PlanComment(nestedPlan(), meta(), CommentLimit))
}

// TestValueBlocks: what a list or a map shows as, in the plan text
// (propLines) and the comment's diff (diffLines).
func TestValueBlocks(t *testing.T) {
	u := value.Unknown
	tests := []struct {
		name       string
		a          plan.Action
		pc         plan.PropChange
		text, diff string
	}{
		{
			name: "a list of maps created", a: plan.Create,
			pc:   prop("rules", nil, []any{map[string]any{"port": 80, "cidr": "0.0.0.0/0"}}),
			text: "rules: [\n    {\n        cidr: 0.0.0.0/0\n        port: 80\n    },\n]",
			diff: "+ rules: [\n+     {\n+         cidr: 0.0.0.0/0\n+         port: 80\n+     },\n+ ]\n",
		},
		{
			name: "empty entries stay on their line", a: plan.Create,
			pc:   prop("spec", nil, map[string]any{"list": []any{}, "map": map[string]any{}, "none": nil}),
			text: "spec: {\n    list: []\n    map: {}\n    none: null\n}",
			diff: "+ spec: {\n+     list: []\n+     map: {}\n+     none: null\n+ }\n",
		},
		{
			name: "keys that are not words quoted", a: plan.Create,
			pc:   prop("tags", nil, map[string]any{"a b": "1", "x: y": "2", "line\nbreak": "3", "": "4", "k8s.io/role": "web"}),
			text: "tags: {\n    \"\": 4\n    \"a b\": 1\n    k8s.io/role: web\n    \"line\\nbreak\": 3\n    \"x: y\": 2\n}",
			diff: "+ tags: {\n+     \"\": 4\n+     \"a b\": 1\n+     k8s.io/role: web\n+     \"line\\nbreak\": 3\n+     \"x: y\": 2\n+ }\n",
		},
		{
			name: "a string of several lines in a map", a: plan.Create,
			pc:   prop("init", nil, map[string]any{"script": "a\nb\n"}),
			text: "init: {\n    script: <<-EOT\n        a\n        b\n    EOT\n}",
			diff: "+ init: {\n+     script: <<-EOT\n+         a\n+         b\n+     EOT\n+ }\n",
		},
		{
			name: "a list that grows", a: plan.Update,
			pc:   prop("groups", []any{"sg-1"}, []any{"sg-1", "sg-2"}),
			text: "groups: [\n    sg-1,\n  + sg-2,\n]",
			diff: "  groups: [\n      sg-1,\n+     sg-2,\n  ]\n",
		},
		{
			name: "a list known in part, forcing a replace", a: plan.Replace,
			pc:   plan.PropChange{Path: "groups", Old: []any{"sg-1"}, New: []any{"sg-1", u}, Unknown: true, ForcesReplace: true},
			text: "groups: [  # forces replacement\n    sg-1,\n  + (known after apply),\n]",
			diff: "  groups: [  # forces replacement\n      sg-1,\n+     (known after apply),\n  ]\n",
		},
		{
			name: "from null", a: plan.Update, pc: prop("tags", nil, map[string]any{"a": "1"}),
			text: "tags: {\n  + a: 1\n}",
			diff: "  tags: {\n+     a: 1\n  }\n",
		},
		{
			name: "a destroy's", a: plan.Destroy, pc: prop("tags", map[string]any{"a": "1"}, nil),
			text: "tags: {\n    a: 1\n}",
			diff: "- tags: {\n-     a: 1\n- }\n",
		},
		{
			name: "a list becoming a map stays on one line", a: plan.Update,
			pc:   prop("x", []any{"a"}, map[string]any{"a": "b"}),
			text: `x: ["a"] → {"a":"b"}`,
			diff: "- x: [\"a\"]\n+ x: {\"a\":\"b\"}\n",
		},
		{
			name: "known only after apply as a whole stays on one line", a: plan.Update,
			pc:   plan.PropChange{Path: "tags", Old: map[string]any{"a": "1"}, New: u, Unknown: true},
			text: `tags: {"a":"1"} → (known after apply)`,
			diff: "- tags: {\"a\":\"1\"}\n+ tags: (known after apply)\n",
		},
		{
			name: "a secret stays masked", a: plan.Create,
			pc:   plan.PropChange{Path: "auth", New: map[string]any{"password": secret}, Sensitive: true},
			text: "auth: (sensitive)",
			diff: "+ auth: (sensitive)\n",
		},
		{
			name: "empty on both sides stays on one line", a: plan.Update,
			pc:   prop("tags", []any{}, map[string]any{}),
			text: "tags: [] → {}",
			diff: "- tags: []\n+ tags: {}\n",
		},
		{
			name: "a fence and control characters in a value", a: plan.Create,
			pc:   prop("doc", nil, map[string]any{"a": "```", "b": "</details>\x1b[2J"}),
			text: "doc: {\n    a: ```\n    b: </details>\\x1b[2J\n}",
			diff: "+ doc: {\n+     a: ```\n+     b: </details>\\x1b[2J\n+ }\n",
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
