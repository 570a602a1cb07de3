package tfprovider

import (
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// TestKykuPath: attribute paths as the configuration's positions name
// them; a set element ends the path at its set.
func TestKykuPath(t *testing.T) {
	for _, tc := range []struct {
		path cty.Path
		want string
	}{
		{cty.GetAttrPath("rule").IndexInt(2).GetAttr("port"), "rule[2].port"},
		{cty.GetAttrPath("tags").Index(cty.StringVal("env")), "tags.env"},
		{cty.GetAttrPath("rules").Index(cty.ObjectVal(map[string]cty.Value{"a": cty.True})).GetAttr("a"), "rules"},
		{nil, ""},
	} {
		if got := kykuPath(tc.path); got != tc.want {
			t.Errorf("kykuPath(%#v) = %q, want %q", tc.path, got, tc.want)
		}
	}
}

// TestCompatible: a final plan or a result keeps what the reviewed plan
// knew; unknown parts may become anything; the error names the path, not
// the value.
func TestCompatible(t *testing.T) {
	obj := func(id, v cty.Value, tags cty.Value) cty.Value {
		return cty.ObjectVal(map[string]cty.Value{"id": id, "value": v, "tags": tags})
	}
	tags := cty.MapVal(map[string]cty.Value{"env": cty.StringVal("prod")})
	planned := obj(cty.UnknownVal(cty.String), cty.StringVal("v1"), tags)
	if err := compatible(nil, planned, obj(cty.StringVal("x-1"), cty.StringVal("v1"), tags)); err != nil {
		t.Errorf("an unknown id became known: %v", err)
	}
	err := compatible(nil, planned, obj(cty.StringVal("x-1"), cty.StringVal("secret-2"), tags))
	if err == nil || err.Error() != "value differs" {
		t.Errorf("a known value changed: %v", err)
	}
	other := cty.MapVal(map[string]cty.Value{"env": cty.StringVal("dev")})
	if err := compatible(nil, planned, obj(cty.StringVal("x-1"), cty.StringVal("v1"), other)); err == nil || err.Error() != `tags["env"] differs` {
		t.Errorf("a known map element changed: %v", err)
	}
	if err := compatible(nil, planned, obj(cty.StringVal("x-1"), cty.UnknownVal(cty.String), tags)); err == nil {
		t.Error("a known value became unknown")
	}
	if err := compatible(nil, planned, obj(cty.StringVal("x-1"), cty.NullVal(cty.String), tags)); err == nil {
		t.Error("a known value became null")
	}
}
