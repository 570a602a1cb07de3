package value_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/value"
)

// TestPutAt: the part of a value a path names is replaced by what the
// same path names in another (removed where that has nothing), the rest
// kept, the value given unchanged; a path the value cannot follow leaves
// it as it is.
func TestPutAt(t *testing.T) {
	steps := func(p string) []value.Step { return value.Ref{Path: p}.Steps() }
	v := map[string]any{"owner": "team-b", "cost": "200"}
	prior := map[string]any{"owner": "team-a", "cost": "100"}
	for _, tc := range []struct {
		path string
		from any
		want any
	}{
		{`["owner"]`, prior, map[string]any{"owner": "team-a", "cost": "200"}},
		{`.owner`, map[string]any{"cost": "1"}, map[string]any{"cost": "200"}},
		{`["missing"]`, prior, map[string]any{"owner": "team-b", "cost": "200"}},
		{`[0]`, prior, v},
	} {
		if got := value.PutAt(v, steps(tc.path), tc.from); !cmp.Equal(got, tc.want) {
			t.Errorf("PutAt(%v, %s, %v) = %v, want %v", v, tc.path, tc.from, got, tc.want)
		}
	}
	if v["owner"] != "team-b" {
		t.Errorf("the value given was changed: %v", v)
	}
	list := []any{map[string]any{"size": 10, "type": "gp3"}, map[string]any{"size": 20}}
	got := value.PutAt(list, steps("[1].size"), []any{nil, map[string]any{"size": 5}})
	want := []any{map[string]any{"size": 10, "type": "gp3"}, map[string]any{"size": 5}}
	if !cmp.Equal(got, want) {
		t.Errorf("into a list: %v, want %v", got, want)
	}
	for in, want := range map[string][2]string{`tags["Name"]`: {"tags", `["Name"]`}, "disk[0].size": {"disk", "[0].size"}, "name": {"name", ""}} {
		if a, b := value.CutPath(in); a != want[0] || b != want[1] {
			t.Errorf("CutPath(%q) = %q, %q", in, a, b)
		}
	}
}

// TestKeepFrom: each entry, a whole attribute or a part of one, holds
// what the other map holds there (nothing where it has nothing), the rest
// and the map given unchanged.
func TestKeepFrom(t *testing.T) {
	dst := map[string]any{"tags": map[string]any{"owner": "b", "cost": "2"}, "name": "new", "extra": "x"}
	src := map[string]any{"tags": map[string]any{"owner": "a", "cost": "1"}, "name": "old"}
	got := value.KeepFrom(dst, src, []string{`tags["owner"]`, "name", "extra"})
	want := map[string]any{"tags": map[string]any{"owner": "a", "cost": "2"}, "name": "old"}
	if !cmp.Equal(got, want) {
		t.Errorf("KeepFrom = %v, want %v", got, want)
	}
	if dst["name"] != "new" || dst["extra"] != "x" {
		t.Errorf("the map given was changed: %v", dst)
	}
}
