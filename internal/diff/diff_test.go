package diff_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/diff"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/schema"
	"github.com/kyku/action/internal/value"
)

func typ(t *testing.T, name string) *schema.Type {
	t.Helper()
	ty, ok := schema.Lookup(name)
	if !ok {
		t.Fatalf("no type %s", name)
	}
	return ty
}

func rule(port float64) map[string]any {
	return map[string]any{"protocol": "tcp", "port": port, "cidr": "0.0.0.0/0"}
}

func TestResource(t *testing.T) {
	vm := map[string]any{"image": "debian-12", "size": "small", "network": "1", "securityGroups": []any{"5", "6"}, "userData": "secret"}
	with := func(k string, v any) map[string]any {
		m := value.CopyMap(vm)
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	tests := []struct {
		name    string
		typ     string
		desired map[string]any
		actual  map[string]any
		last    map[string]any
		ignore  []string
		want    diff.Result
	}{
		{name: "equal is a no-op", typ: "Vm", desired: vm, actual: vm, want: diff.Result{Action: plan.NoOp}},
		{name: "mutable change is an update", typ: "Vm", desired: with("size", "large"), actual: vm,
			want: diff.Result{Action: plan.Update, Changes: []plan.PropChange{{Path: "size", Old: "small", New: "large"}}}},
		{name: "immutable change is a replace", typ: "Vm", desired: with("image", "debian-13"), actual: vm,
			want: diff.Result{Action: plan.Replace, Changes: []plan.PropChange{{Path: "image", Old: "debian-12", New: "debian-13", ForcesReplace: true}}}},
		{name: "ignoreChanges hides drift", typ: "Vm", desired: vm, actual: with("size", "xl"), ignore: []string{"size"},
			want: diff.Result{Action: plan.NoOp}},
		{name: "set order does not matter", typ: "Vm", desired: vm, actual: with("securityGroups", []any{"6", "5"}),
			want: diff.Result{Action: plan.NoOp}},
		{name: "set membership change is an update", typ: "SecurityGroup",
			desired: map[string]any{"network": "1", "ingress": []any{rule(80), rule(443)}},
			actual:  map[string]any{"network": "1", "ingress": []any{rule(443), rule(22)}},
			want: diff.Result{Action: plan.Update, Changes: []plan.PropChange{
				{Path: "ingress[0].port", Old: float64(22), New: float64(443)},
				{Path: "ingress[1].port", Old: float64(443), New: float64(80)},
			}}},
		{name: "set of rules in another order is a no-op", typ: "SecurityGroup",
			desired: map[string]any{"network": "1", "ingress": []any{rule(80), rule(443)}},
			actual:  map[string]any{"network": "1", "ingress": []any{rule(443), rule(80)}},
			want:    diff.Result{Action: plan.NoOp}},
		{name: "sensitive changes are flagged", typ: "Vm", desired: with("userData", "new"), actual: vm,
			want: diff.Result{Action: plan.Replace, Changes: []plan.PropChange{{Path: "userData", Old: "secret", New: "new", Sensitive: true, ForcesReplace: true}}}},
		{name: "unreadable property compares with the last applied", typ: "Vm", desired: vm, actual: with("userData", nil), last: vm,
			want: diff.Result{Action: plan.NoOp}},
		{name: "unknown value is a change", typ: "Vm", desired: with("network", value.Unknown), actual: vm,
			want: diff.Result{Action: plan.Update, Changes: []plan.PropChange{{Path: "network", Old: "1", New: value.Unknown, Unknown: true}}}},
		{name: "map keys compared one by one", typ: "Vpc",
			desired: map[string]any{"cidr": "10.0.0.0/16", "tags": map[string]any{"env": "prod", "team": "net"}},
			actual:  map[string]any{"cidr": "10.0.0.0/16", "tags": map[string]any{"env": "dev", "team": "net"}},
			want:    diff.Result{Action: plan.Update, Changes: []plan.PropChange{{Path: "tags.env", Old: "dev", New: "prod"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := diff.Resource(diff.Input{Type: typ(t, tt.typ), Desired: tt.desired, Actual: tt.actual, Last: tt.last, IgnoreChanges: tt.ignore})
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestCreateListsPropertiesAndMasksNothingItself(t *testing.T) {
	got := diff.Create(typ(t, "Vm"), map[string]any{"image": "debian-12", "userData": "x", "tags": map[string]any{}})
	want := []plan.PropChange{{Path: "image", New: "debian-12"}, {Path: "userData", New: "x", Sensitive: true}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestValues(t *testing.T) {
	prior := map[string]any{"id": "a-1", "name": "a", "revision": 1.0, "secret": "s1", "tags": map[string]any{"env": "prod"}}
	planned := map[string]any{"id": "a-1", "name": "a", "revision": value.Unknown, "secret": "s2", "tags": map[string]any{"env": "dev", "team": "x"}}
	want := []plan.PropChange{
		{Path: "revision", Old: 1.0, New: value.Unknown, Unknown: true},
		{Path: "secret", Old: "s1", New: "s2", Sensitive: true},
		{Path: "tags.env", Old: "prod", New: "dev"},
		{Path: "tags.team", New: "x"},
	}
	if d := cmp.Diff(want, diff.Values(prior, planned, []string{"secret"})); d != "" {
		t.Errorf("update (-want +got):\n%s", d)
	}
	want = []plan.PropChange{
		{Path: "id", New: value.Unknown, Unknown: true},
		{Path: "name", New: "a"},
		{Path: "secret", New: "s2", Sensitive: true},
	}
	if d := cmp.Diff(want, diff.Values(nil, map[string]any{"id": value.Unknown, "name": "a", "secret": "s2", "tags": map[string]any{}}, []string{"secret"})); d != "" {
		t.Errorf("create (-want +got):\n%s", d)
	}
	if got := diff.Values(prior, prior, nil); len(got) != 0 {
		t.Errorf("no change: %v", got)
	}
}
