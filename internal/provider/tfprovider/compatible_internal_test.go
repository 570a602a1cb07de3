package tfprovider

import (
	"testing"

	"github.com/zclconf/go-cty/cty"

	"github.com/kyku/action/internal/lang/marks"
)

// TestCompatibleOfMarkedValues: marks at any depth (a sensitive
// attribute, a sensitive map element) neither hide a difference nor make
// one.
func TestCompatibleOfMarkedValues(t *testing.T) {
	obj := func(v, env cty.Value) cty.Value {
		return cty.ObjectVal(map[string]cty.Value{
			"id":   cty.StringVal("x-1"),
			"list": cty.ListVal([]cty.Value{cty.ObjectVal(map[string]cty.Value{"v": v})}),
			"tags": cty.MapVal(map[string]cty.Value{"env": env}),
		})
	}
	secret := func(v cty.Value) cty.Value { return v.Mark(marks.Sensitive) }
	planned := obj(secret(cty.StringVal("v1")), secret(cty.StringVal("prod")))
	for _, tc := range []struct {
		name string
		got  cty.Value
		want string
	}{
		{"same, marked", obj(secret(cty.StringVal("v1")), secret(cty.StringVal("prod"))), ""},
		{"same, unmarked", obj(cty.StringVal("v1"), cty.StringVal("prod")), ""},
		{"a marked element in a list changed", obj(secret(cty.StringVal("v2")), secret(cty.StringVal("prod"))), "list[0].v differs"},
		{"a marked map element changed", obj(cty.StringVal("v1"), secret(cty.StringVal("dev"))), `tags["env"] differs`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := compatible(nil, planned, tc.got)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("compatible: %q, want %q", got, tc.want)
			}
		})
	}
}

// BenchmarkCompatible: the check of an applied null_resource against its
// plan (an id, a map of three triggers), made once per created object.
func BenchmarkCompatible(b *testing.B) {
	obj := func(id cty.Value) cty.Value {
		return cty.ObjectVal(map[string]cty.Value{
			"id": id,
			"triggers": cty.MapVal(map[string]cty.Value{
				"name": cty.StringVal("site-00-000"), "cidr": cty.StringVal("10.0.0.0/24"),
				"labels": cty.StringVal(`{"cidr":"10.0.0.0/16","env":"bench","index":"0","owner":"platform"}`),
			}),
		})
	}
	planned, got := obj(cty.UnknownVal(cty.String)), obj(cty.StringVal("8597298499841342986"))
	b.ReportAllocs()
	for b.Loop() {
		if err := compatible(nil, planned, got); err != nil {
			b.Fatal(err)
		}
	}
}
