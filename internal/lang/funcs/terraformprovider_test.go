package funcs

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2/hclwrite"
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

// TestEncodeAsHCLWriteDoes: encode_tfvars and encode_expr write what
// OpenTofu's, written with hclwrite, write, byte for byte, for values of
// every kind and nesting (hclwrite is linked by this test alone).
func TestEncodeAsHCLWriteDoes(t *testing.T) {
	obj := func(kv ...any) cty.Value {
		m := map[string]cty.Value{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1].(cty.Value)
		}
		return cty.ObjectVal(m)
	}
	s, n := cty.StringVal, cty.NumberIntVal
	values := []cty.Value{
		s(""), s("plain"), s("a\"b\\c\n\r\t${x} %{y} $ % é \x01 \U0001F600 ☃"),
		n(0), n(-42), cty.NumberFloatVal(1.5), cty.MustParseNumberVal("123456789012345678901234567890.125"),
		cty.True, cty.NullVal(cty.String), cty.EmptyTupleVal, cty.EmptyObjectVal,
		cty.ListVal([]cty.Value{s("a"), s("b")}), cty.SetVal([]cty.Value{s("b"), s("a")}),
		cty.TupleVal([]cty.Value{n(1), s("a"), obj("k", cty.True)}),
		obj("a", n(1), "longer", obj("x", cty.True, "yy_long", s("s")), "b", s("x"), "zz", cty.ListVal([]cty.Value{s("a")})),
		obj("not valid", n(1), "ok", cty.EmptyObjectVal, "l", cty.EmptyTupleVal, "ünï", s("x")),
		cty.MapVal(map[string]cty.Value{"x.y": s("1"), "b": s("2")}),
		cty.TupleVal([]cty.Value{obj("a", cty.True), cty.ListVal([]cty.Value{obj("k", n(2), "kkk", cty.NullVal(cty.String))})}),
		obj("deep", obj("deeper", obj("deepest", cty.TupleVal([]cty.Value{obj("x", n(1)), obj("y", n(2))}), "z", s("z"))), "after", n(3)),
		cty.TupleVal([]cty.Value{cty.TupleVal([]cty.Value{obj("a", n(1), "bb", n(2))}), obj()}),
		obj("l", cty.TupleVal([]cty.Value{obj("in", n(1))}), "m", n(2), "nn", obj("q", s("r")), "o", n(3)),
	}
	for _, v := range values {
		f := hclwrite.NewEmptyFile()
		f.Body().AppendUnstructuredTokens(hclwrite.TokensForValue(v))
		if got := formatHCL(appendValueTokens(nil, v)); got != string(f.Bytes()) {
			t.Errorf("encode_expr(%#v):\n%s\nwant (hclwrite):\n%s", v, got, f.Bytes())
		}
		if !v.Type().IsObjectType() {
			continue
		}
		f = hclwrite.NewEmptyFile()
		var toks []*hclTok
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			f.Body().SetAttributeValue(k.AsString(), e)
			toks = appendAttributeTokens(toks, k.AsString(), e)
		}
		if got := formatHCL(toks); got != string(f.Bytes()) {
			t.Errorf("encode_tfvars(%#v):\n%s\nwant (hclwrite):\n%s", v, got, f.Bytes())
		}
	}
}
