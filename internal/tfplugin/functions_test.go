package tfplugin_test

import (
	"errors"
	"testing"
	"time"

	"github.com/zclconf/go-cty/cty"

	"github.com/kyku/action/internal/tfplugin"
	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// TestProviderFunctions: the functions a provider defines are listed with
// their signatures and called on a process never configured (as OpenTofu
// calls them); a function's refusal names the argument it refuses.
func TestProviderFunctions(t *testing.T) {
	p, err := tfplugin.Start(t.Context(), tfplugin.Config{Name: "fwtest", Path: tfplugintest.Build(t, tfplugintest.Framework), StopGrace: 5 * time.Second})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { p.Close() })
	ctx := t.Context()
	fns, err := p.Functions(ctx)
	if err != nil {
		t.Fatalf("Functions: %v", err)
	}
	join := fns["join_upper"]
	if join == nil || len(join.Params) != 1 || join.Params[0].Name != "separator" || !join.Params[0].Type.Equals(cty.String) ||
		join.Variadic == nil || join.Variadic.Name != "parts" || !join.Return.Equals(cty.String) || join.Summary != "Joins strings, upper-cased" {
		t.Fatalf("join_upper = %#v", join)
	}
	or := fns["or_default"]
	if or == nil || len(or.Params) != 2 || !or.Params[0].AllowNull || or.Params[1].AllowNull {
		t.Fatalf("or_default = %#v", or)
	}
	cidr := fns["parse_cidr"]
	wantCIDR := cty.Object(map[string]cty.Type{"address": cty.String, "bits": cty.Number})
	if cidr == nil || !cidr.Return.Equals(wantCIDR) {
		t.Fatalf("parse_cidr = %#v", cidr)
	}
	if s := fns["sum"]; s == nil || !s.Params[0].Type.Equals(cty.List(cty.Number)) {
		t.Fatalf("sum = %#v", s)
	}

	calls := []struct {
		name string
		args []cty.Value
		want cty.Value
	}{
		{"join_upper", []cty.Value{cty.StringVal("-"), cty.StringVal("a"), cty.StringVal("b")}, cty.StringVal("A-B")},
		{"join_upper", []cty.Value{cty.StringVal("-")}, cty.StringVal("")},
		{"parse_cidr", []cty.Value{cty.StringVal("10.1.0.0/16")}, cty.ObjectVal(map[string]cty.Value{"address": cty.StringVal("10.1.0.0"), "bits": cty.NumberIntVal(16)})},
		{"sum", []cty.Value{cty.ListVal([]cty.Value{cty.NumberIntVal(2), cty.NumberIntVal(40)})}, cty.NumberIntVal(42)},
		{"or_default", []cty.Value{cty.NullVal(cty.String), cty.StringVal("d")}, cty.StringVal("d")},
		{"or_default", []cty.Value{cty.StringVal("v"), cty.StringVal("d")}, cty.StringVal("v")},
	}
	for _, c := range calls {
		got, err := p.CallFunction(ctx, c.name, c.args)
		if err != nil {
			t.Errorf("%s%v: %v", c.name, c.args, err)
			continue
		}
		if !got.RawEquals(c.want) {
			t.Errorf("%s%v = %#v, want %#v", c.name, c.args, got, c.want)
		}
	}

	_, err = p.CallFunction(ctx, "join_upper", []cty.Value{cty.StringVal(""), cty.StringVal("a")})
	var fe *tfplugin.FunctionError
	if !errors.As(err, &fe) || !fe.ArgumentSet || fe.Argument != 0 || fe.Text != "the separator must not be empty" {
		t.Errorf("join_upper with an empty separator: %#v, want the first argument refused", err)
	}
	_, err = p.CallFunction(ctx, "parse_cidr", []cty.Value{cty.StringVal("nope")})
	if !errors.As(err, &fe) || fe.Argument != 0 {
		t.Errorf("parse_cidr(\"nope\"): %v, want the argument refused", err)
	}
	if _, err := p.CallFunction(ctx, "missing", nil); err == nil || errors.As(err, &fe) {
		t.Errorf("an undefined function: %v, want the call's error", err)
	}
}

// TestProviderWithoutFunctions: a provider defining none (protocol 5,
// terraform-plugin-sdk) lists none, without an error.
func TestProviderWithoutFunctions(t *testing.T) {
	p, _ := start(t, tfplugintest.SDK)
	fns, err := p.Functions(t.Context())
	if err != nil || len(fns) != 0 {
		t.Fatalf("Functions = %v, %v; want none", fns, err)
	}
}
