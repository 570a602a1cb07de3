package tfschema

import (
	"testing"

	"github.com/kyku/action/internal/value"
	"github.com/zclconf/go-cty/cty"
)

func TestCheckPath(t *testing.T) {
	obj := cty.Object(map[string]cty.Type{"host": cty.String, "port": cty.Number})
	typ := cty.Object(map[string]cty.Type{
		"endpoints": cty.List(obj),
		"tags":      cty.Map(cty.String),
		"rules":     cty.Set(obj),
		"pair":      cty.Tuple([]cty.Type{cty.String, obj}),
		"any":       cty.DynamicPseudoType,
	})
	for _, tc := range []struct{ path, err string }{
		{path: ".endpoints[0].host"},
		{path: `.tags["a/b"]`},
		{path: ".pair[1].port"},
		{path: ".any[0].what.ever"},
		{path: ".endpoints.host", err: `["host"]: a list has elements by number, not by key`},
		{path: ".endpoints[0].hots", err: `["hots"]: the object has no attribute "hots" (did you mean "host"?)`},
		{path: ".endpoints[0].zzzzzzz", err: `["zzzzzzz"]: the object has no attribute "zzzzzzz" (it has: host, port)`},
		{path: ".tags[0]", err: "[0]: a map has entries by key, not by number"},
		{path: ".rules[0]", err: "[0]: a set's elements have no number or key to read them by"},
		{path: ".pair[2]", err: "[2]: index out of range (the tuple has 2 elements)"},
		{path: ".pair.x", err: `["x"]: a tuple has elements by number, not by key`},
		{path: ".endpoints[0].host[0]", err: "[0]: a string has nothing to read into"},
		{path: "[0]", err: "[0]: an object has attributes by name, not by number"},
		// [*]: each element of a list, set or tuple; any other value as a
		// list of itself.
		{path: ".endpoints[*].host"},
		{path: ".rules[*].port"},
		{path: ".tags[*].a"},
		{path: ".endpoints[0].host[*]"},
		{path: ".endpoints[*][*].port"},
		{path: ".any[*].x"},
		{path: ".rules[*].hots", err: `["hots"]: the object has no attribute "hots" (did you mean "host"?)`},
		{path: ".endpoints[*][0]", err: "[0]: an object has attributes by name, not by number"},
		{path: ".pair[*].port", err: `[*] (element 0): ["port"]: a string has nothing to read into`},
	} {
		err := CheckPath(typ, value.Ref{Resource: "r", Attr: "x", Path: tc.path}.Steps())
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("CheckPath(%s): %v", tc.path, err)
		case tc.err != "" && (err == nil || err.Error() != tc.err):
			t.Errorf("CheckPath(%s) = %v, want %q", tc.path, err, tc.err)
		}
	}
}

// TestPathType: the type a path reads, where the schema says it.
func TestPathType(t *testing.T) {
	obj := cty.Object(map[string]cty.Type{"host": cty.String, "port": cty.Number})
	typ := cty.Object(map[string]cty.Type{
		"endpoints": cty.List(obj),
		"tags":      cty.Map(cty.String),
		"rules":     cty.Set(obj),
		"pair":      cty.Tuple([]cty.Type{cty.String, obj}),
		"any":       cty.DynamicPseudoType,
	})
	for _, tc := range []struct {
		path string
		want cty.Type // cty.NilType: not said
	}{
		{path: "", want: typ},
		{path: ".tags", want: cty.Map(cty.String)},
		{path: `.tags["a/b"]`, want: cty.String},
		{path: ".endpoints", want: cty.List(obj)},
		{path: ".endpoints[0].port", want: cty.Number},
		{path: ".pair[1]", want: obj},
		{path: ".rules", want: cty.Set(obj)},
		{path: ".rules[0]"},
		{path: ".any"},
		{path: ".any.x"},
		{path: ".endpoints[*].host"},
		{path: ".tags[0]"},
		{path: ".nope"},
	} {
		got, ok := PathType(typ, value.Ref{Resource: "r", Attr: "x", Path: tc.path}.Steps())
		if ok != (tc.want != cty.NilType) || (ok && !got.Equals(tc.want)) {
			t.Errorf("PathType(%s) = %#v, %v; want %#v", tc.path, got, ok, tc.want)
		}
	}
}
