package tfprovider

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/zclconf/go-cty/cty"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/tfplugin"
	"github.com/kyku/action/internal/tfschema"
)

// TestAppliedValues: a create answered as values is held to its reviewed
// plan as one answered as a cty value is: a new state that keeps the
// plan is the object, whatever bytes carry its values; one that
// differs, or comes with errors, is the object kept with the error. The
// object's exact state decodes to the new state.
func TestAppliedValues(t *testing.T) {
	block := &tfschema.Block{Attributes: map[string]*tfschema.Attribute{
		"id":       {Type: cty.String, Computed: true},
		"size":     {Type: cty.Number, Optional: true},
		"triggers": {Type: cty.Map(cty.String), Optional: true},
	}}
	block.Finish()
	rs := &tfschema.Schema{Version: 1, Block: block}
	ty := block.ImpliedType()
	enc := func(v cty.Value) []byte {
		b, err := tfplugin.AppendMsgpack(nil, v, ty)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	obj := func(id, a string, size cty.Value) cty.Value {
		idv := cty.UnknownVal(cty.String)
		if id != "" {
			idv = cty.StringVal(id)
		}
		return cty.ObjectVal(map[string]cty.Value{"id": idv, "size": size, "triggers": cty.MapVal(map[string]cty.Value{"a": cty.StringVal(a)})})
	}
	planned := enc(obj("", "1", cty.NumberIntVal(1)))
	p := &Provider{cfg: Config{Name: "null"}}
	r := provider.Resource{Type: "null_resource", Name: "n", Planned: &provider.Planned{State: planned}}
	// size 1 as the float 1.0: other bytes than the plan's, the same value
	kept := enc(obj("x-1", "1", cty.NumberIntVal(1)))
	at := bytes.Index(kept, []byte("\xa4size")) + 5
	asFloat := slices.Concat(kept[:at], []byte{0xcb, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0}, kept[at+1:])
	for _, tc := range []struct {
		name    string
		got     []byte
		diags   tfschema.Diagnostics
		legacy  bool
		wantErr string
	}{
		{name: "kept", got: kept},
		{name: "kept in other bytes", got: asFloat},
		{name: "a planned value changed", got: enc(obj("x-1", "2", cty.NumberIntVal(1))),
			wantErr: `provider null produced an object that differs from its plan (triggers["a"] differs): a bug in the provider; state records what it produced`},
		{name: "changed, by a provider of the legacy type system", got: enc(obj("x-1", "2", cty.NumberIntVal(1))), legacy: true},
		{name: "errors", got: enc(obj("x-1", "1", cty.NumberIntVal(1))), diags: tfschema.Diagnostics{{Severity: tfschema.Error, Summary: "boom"}},
			wantErr: "provider null: boom"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			values, err := tfplugin.DecodeValues(tc.got, ty)
			if err != nil {
				t.Fatal(err)
			}
			ar := tfplugin.ApplyResponse{NewValues: values, NewMsgpack: tc.got, Private: []byte("p"), Diagnostics: tc.diags, LegacyTypeSystem: tc.legacy}
			got, err := p.appliedValues(r, rs, ar)
			var partial *provider.PartialError
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("appliedValues: %v", err)
				}
			} else {
				if !errors.As(err, &partial) || partial.Err.Error() != tc.wantErr {
					t.Fatalf("appliedValues: %v, want the object kept with %q", err, tc.wantErr)
				}
				got = partial.Object
			}
			if got.ID != "x-1" || got.Stored == nil || string(got.Stored.Private) != "p" || cmp.Diff(values, got.Properties) != "" {
				t.Errorf("object %+v", got)
			}
			newState, err := tfplugin.UnmarshalMsgpack(tc.got, ty)
			if err != nil {
				t.Fatal(err)
			}
			if v, err := p.storedValue(t.Context(), nil, "null_resource", rs, got.Stored); err != nil || !v.RawEquals(newState) {
				t.Errorf("its stored value: %v %#v, want %#v", err, v, newState)
			}
		})
	}
}
