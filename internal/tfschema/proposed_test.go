package tfschema

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/zclconf/go-cty/cty"

	"github.com/kyku/action/internal/value"
)

func mustConfig(t *testing.T, b *Block, props map[string]any) cty.Value {
	t.Helper()
	v, ds := Config(b, props)
	if ds.HasErrors() {
		t.Fatalf("Config: %v", ds.Err())
	}
	return v
}

func mustState(t *testing.T, b *Block, props map[string]any) cty.Value {
	t.Helper()
	v, err := ToCty(props, b.ImpliedType())
	if err != nil {
		t.Fatalf("ToCty: %v", err)
	}
	return v
}

func TestProposedNew(t *testing.T) {
	b := testBlock()
	prior := map[string]any{
		"name": "web", "value": "old", "id": "i-1", "serial": 7.0,
		"rule":   []any{map[string]any{"port": 80.0, "rid": "r-80"}, map[string]any{"port": 443.0, "rid": "r-443"}},
		"member": []any{map[string]any{"user": "ann", "mid": "m-ann"}, map[string]any{"user": "bob", "mid": "m-bob"}},
		"meta":   map[string]any{},
	}
	tests := []struct {
		name          string
		prior, config map[string]any
		want          map[string]any
	}{{
		name:   "create: the configuration, computed attributes null for the provider to plan",
		config: map[string]any{"name": "web", "rule": []any{map[string]any{"port": 80.0}}},
		want: map[string]any{"name": "web", "rule": []any{map[string]any{"port": 80.0}},
			"member": []any{}, "meta": map[string]any{}},
	}, {
		name:  "update: computed values stay, configured ones change, blocks matched by index and by value",
		prior: prior,
		config: map[string]any{"name": "web", "value": "new",
			"rule":   []any{map[string]any{"port": 80.0}, map[string]any{"port": 8443.0}},
			"member": []any{map[string]any{"user": "bob"}, map[string]any{"user": "cy"}}},
		want: map[string]any{"name": "web", "value": "new", "id": "i-1", "serial": 7.0,
			// by index: the second rule keeps the computed rid of the second prior rule
			"rule": []any{map[string]any{"port": 80.0, "rid": "r-80"}, map[string]any{"port": 8443.0, "rid": "r-443"}},
			// by value: bob keeps his mid, cy is new
			"member": []any{map[string]any{"user": "bob", "mid": "m-bob"}, map[string]any{"user": "cy"}},
			"meta":   map[string]any{}},
	}, {
		name:   "an optional+computed attribute set in the configuration wins",
		prior:  prior,
		config: map[string]any{"name": "web", "serial": 9.0},
		want:   map[string]any{"name": "web", "id": "i-1", "serial": 9.0, "rule": []any{}, "member": []any{}, "meta": map[string]any{}},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := cty.NullVal(b.ImpliedType())
			if tc.prior != nil {
				p = mustState(t, b, tc.prior)
			}
			got := ProposedNew(b, p, mustConfig(t, b, tc.config))
			if errs := got.Type().TestConformance(b.ImpliedType()); errs != nil {
				t.Fatalf("proposed value does not conform: %v", errs)
			}
			if d := cmp.Diff(tc.want, FromCtyObject(got)); d != "" {
				t.Errorf("ProposedNew (-want +got):\n%s", d)
			}
		})
	}
	t.Run("destroy: a null configuration proposes null", func(t *testing.T) {
		if got := ProposedNew(b, mustState(t, b, prior), cty.NullVal(b.ImpliedType())); !got.IsNull() {
			t.Errorf("got %#v, want null", got)
		}
	})
}

func TestSensitive(t *testing.T) {
	b := testBlock()
	if d := cmp.Diff([]string{"endpoints", "secret"}, b.SensitiveNames()); d != "" {
		t.Errorf("SensitiveNames (-want +got):\n%s", d)
	}
	props := map[string]any{
		"name": "web", "secret": "hunter2",
		"endpoints": []any{map[string]any{"host": "h", "token": "t0ken"}, map[string]any{"host": "g"}},
	}
	masked := b.Mask(props)
	want := map[string]any{
		"name": "web", "secret": Sensitive,
		"endpoints": []any{map[string]any{"host": "h", "token": Sensitive}, map[string]any{"host": "g"}},
	}
	if d := cmp.Diff(want, masked); d != "" {
		t.Errorf("Mask (-want +got):\n%s", d)
	}
	if props["secret"] != "hunter2" {
		t.Error("Mask changed its input")
	}
	var paths []string
	for _, p := range b.SensitivePaths(mustState(t, b, props)) {
		paths = append(paths, PathString(p))
	}
	if d := cmp.Diff([]string{"endpoints[0].token", "secret"}, paths); d != "" {
		t.Errorf("SensitivePaths (-want +got):\n%s", d)
	}
}

// TestPlannedUnknown: what a data source read during apply is known to
// hold at plan, as OpenTofu's PlannedUnknownObject: what is configured,
// unknown where the provider computes what is not configured (nested
// blocks of a list too), null elsewhere.
func TestPlannedUnknown(t *testing.T) {
	b := testBlock()
	cfg := mustConfig(t, b, map[string]any{"name": "web", "serial": 9.0, "rule": []any{map[string]any{"port": 80.0}}})
	got := PlannedUnknown(b, cfg)
	if errs := got.Type().TestConformance(b.ImpliedType()); errs != nil {
		t.Fatalf("planned value does not conform: %v", errs)
	}
	want := map[string]any{
		"name": "web", "serial": 9.0, "id": value.Unknown,
		"rule":   []any{map[string]any{"port": 80.0, "rid": value.Unknown}},
		"member": []any{}, "meta": map[string]any{},
	}
	if d := cmp.Diff(want, FromCtyObject(got)); d != "" {
		t.Errorf("PlannedUnknown (-want +got):\n%s", d)
	}
}
