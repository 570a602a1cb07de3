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

// TestCompatibleOfMarkedSets: a set is compared whole, its elements'
// marks left out; one with an unknown element may become anything.
func TestCompatibleOfMarkedSets(t *testing.T) {
	set := func(vs ...cty.Value) cty.Value {
		return cty.ObjectVal(map[string]cty.Value{"ports": cty.SetVal(vs)})
	}
	secret := func(s string) cty.Value { return cty.StringVal(s).Mark(marks.Sensitive) }
	objs := func(port cty.Value) cty.Value {
		return set(cty.ObjectVal(map[string]cty.Value{"port": port}))
	}
	for _, tc := range []struct {
		name         string
		planned, got cty.Value
		want         string
	}{
		{"same, marked in the plan only", set(secret("80"), secret("443")), set(cty.StringVal("80"), cty.StringVal("443")), ""},
		{"same, marked in the result only", set(cty.StringVal("80")), set(secret("80")), ""},
		{"an element changed", set(secret("80"), secret("443")), set(cty.StringVal("80"), cty.StringVal("8443")), "ports differs"},
		{"planned with an unknown element", set(cty.UnknownVal(cty.String)), set(cty.StringVal("22")), ""},
		{"objects with a marked attribute, same", objs(secret("80")), objs(cty.StringVal("80")), ""},
		{"objects with a marked attribute, changed", objs(secret("80")), objs(cty.StringVal("81")), "ports differs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := compatible(nil, tc.planned, tc.got)
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
