package funcs

import (
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// TestBuiltinProviderFunctions: the built-in provider's functions are
// there only under the local names given, and refuse what OpenTofu's
// refuse.
func TestBuiltinProviderFunctions(t *testing.T) {
	if _, ok := Table(Options{})["provider::terraform::encode_expr"]; ok {
		t.Error("provider::terraform::encode_expr without the provider required")
	}
	tab := Table(Options{BuiltinProvider: []string{"tf"}})
	call := func(name string, arg cty.Value) (cty.Value, error) {
		return tab["provider::tf::"+name].Call([]cty.Value{arg})
	}
	obj := cty.ObjectVal(map[string]cty.Value{"b": cty.StringVal("x"), "a": cty.NumberIntVal(1)})
	if got, err := call("encode_tfvars", obj); err != nil || got.AsString() != "a = 1\nb = \"x\"\n" {
		t.Errorf("encode_tfvars = %#v, %v", got, err)
	}
	if got, err := call("decode_tfvars", cty.StringVal("a = 1\nb = \"x\"\n")); err != nil || !got.RawEquals(cty.ObjectVal(map[string]cty.Value{"a": cty.NumberIntVal(1), "b": cty.StringVal("x")})) {
		t.Errorf("decode_tfvars = %#v, %v", got, err)
	}
	if got, err := call("encode_expr", cty.TupleVal([]cty.Value{cty.NumberIntVal(1), cty.StringVal("a")})); err != nil || got.AsString() != `[1, "a"]` {
		t.Errorf("encode_expr = %#v, %v", got, err)
	}
	for _, c := range []struct {
		name string
		arg  cty.Value
		want string
	}{
		{"encode_tfvars", cty.NullVal(cty.DynamicPseudoType), "must not be null"},
		{"encode_expr", cty.NullVal(cty.DynamicPseudoType), "must not be null"},
		{"encode_tfvars", cty.ListValEmpty(cty.String), "must be an object"},
		{"encode_tfvars", cty.ObjectVal(map[string]cty.Value{"not valid": cty.True}), "must be a valid identifier"},
		{"decode_tfvars", cty.StringVal("a = var.x"), "failed to decode tfvars content"},
		{"decode_tfvars", cty.StringVal("a = "), "failed to decode tfvars content"},
		{"encode_expr", cty.TupleVal([]cty.Value{cty.UnknownVal(cty.String)}), "not wholly known"},
	} {
		if _, err := call(c.name, c.arg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s(%#v) = %v, want an error saying %q", c.name, c.arg, err, c.want)
		}
	}
}
