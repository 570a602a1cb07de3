package property_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/provider/property"
)

func TestReads(t *testing.T) {
	p := map[string]any{
		"cidr": "10.0.0.0/16", "port": float64(8080), "public": true,
		"sshKeys": []any{"1", float64(2), "3"}, "wrong": float64(1),
	}
	for _, tc := range []struct {
		name      string
		got, want any
	}{
		{"string", property.String(p, "cidr"), "10.0.0.0/16"},
		{"string absent", property.String(p, "none"), ""},
		{"string of a number", property.String(p, "wrong"), ""},
		{"string or default", property.StringOr(p, "cidr", "x"), "10.0.0.0/16"},
		{"string or default, absent", property.StringOr(p, "none", "small"), "small"},
		{"int", property.Int(p, "port", 80), 8080},
		{"int absent takes the default", property.Int(p, "none", 80), 80},
		{"int of a string takes the default", property.Int(p, "cidr", 80), 80},
		{"bool", property.Bool(p, "public"), true},
		{"bool absent", property.Bool(p, "none"), false},
		{"strings skip non-strings", property.Strings(p, "sshKeys"), []string{"1", "3"}},
		{"strings absent", property.Strings(p, "none"), []string{}},
	} {
		if d := cmp.Diff(tc.want, tc.got); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, d)
		}
	}
}

func TestDiff(t *testing.T) {
	add, remove := property.Diff([]int64{1, 2, 3}, []int64{3, 4, 1, 5})
	if d := cmp.Diff([]int64{4, 5}, add); d != "" {
		t.Errorf("add (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]int64{2}, remove); d != "" {
		t.Errorf("remove (-want +got):\n%s", d)
	}
	if add, remove := property.Diff([]string{"a"}, []string{"a"}); add != nil || remove != nil {
		t.Errorf("equal sets: add %v, remove %v; want none", add, remove)
	}
}

func TestTags(t *testing.T) {
	props := map[string]any{"tags": map[string]any{"env": "prod", "team": "web", "count": float64(3)}}
	got := property.Tags(props, map[string]string{"team": "kyku-wins", "kyku-name": "web"})
	want := map[string]string{"env": "prod", "team": "kyku-wins", "kyku-name": "web"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Tags (-want +got):\n%s", d)
	}
	if got := property.Tags(map[string]any{}, nil); len(got) != 0 {
		t.Errorf("no tags: %v", got)
	}
}

func TestSetTags(t *testing.T) {
	system := func(k string) bool { return strings.HasPrefix(k, "kyku-") }
	got := property.SetTags(map[string]any{"cidr": "10.0.0.0/16"}, map[string]string{"env": "prod", "kyku-name": "web"}, system)
	want := map[string]any{"cidr": "10.0.0.0/16", "tags": map[string]any{"env": "prod"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("SetTags (-want +got):\n%s", d)
	}
	// Only system tags: no "tags" property, so it equals an absent one.
	got = property.SetTags(map[string]any{}, map[string]string{"kyku-name": "web"}, system)
	if _, ok := got["tags"]; ok {
		t.Errorf("only system tags: props %v; want no tags property", got)
	}
}

func TestList(t *testing.T) {
	if d := cmp.Diff([]any{"b", "a"}, property.List([]string{"b", "a"})); d != "" {
		t.Errorf("List (-want +got):\n%s", d)
	}
	if got := property.List(nil); got == nil || len(got) != 0 {
		t.Errorf("List(nil) = %#v; want an empty list", got)
	}
}
