package tfconfig

import (
	"fmt"
	"testing"

	"github.com/zclconf/go-cty/cty"

	"github.com/kyku/action/internal/value"
)

// TestAttrReadIsEvaluate: an argument reading one attribute of one
// resource instance is read without an evaluation context (attrRead),
// to the value evaluate gives, asking lookup the same questions in the
// same order, whatever lookup answers; any other argument is left to
// evaluate.
func TestAttrReadIsEvaluate(t *testing.T) {
	dir := t.TempDir()
	tf := `
resource "null_resource" "a" {}
resource "null_resource" "n" {
  count = 2
}
resource "null_resource" "b" {
  triggers = null_resource.a.id
  other    = null_resource.a.missing
  counted  = null_resource.n[0].id
  template = "${null_resource.a.id}"
}
`
	cfg := expandMain(t, dir, tf)
	var b map[string]any
	for _, r := range cfg.Resources {
		if r.Name == "null_resource.b" {
			b = r.Properties
		}
	}
	answers := map[string]struct {
		v  any
		ok bool
	}{
		"not found":       {nil, false},
		"not an object":   {"x", true},
		"the attribute":   {map[string]any{"id": "i-1", "tags": map[string]any{"a": []any{1.0, true}}, "n": 2.5}, true},
		"unknown":         {map[string]any{"id": value.Unknown, "part": "a" + value.Unknown}, true},
		"no such":         {map[string]any{"name": "x"}, true},
		"null":            {map[string]any{"id": nil}, true},
		"number":          {map[string]any{"id": 3.0, "missing": false}, true},
		"normalised name": {map[string]any{"id": "i-2", "\u212a": "kelvin", "e\u0301": "e"}, true},
	}
	for name, want := range map[string]bool{"triggers": true, "other": true, "counted": false, "template": false} {
		e, ok := b[name].(*Expr)
		if !ok {
			t.Fatalf("%s is %#v, want an expression", name, b[name])
		}
		if _, ok := e.attrRead(nil); ok != want {
			t.Errorf("%s: read without a context: %v, want %v", name, ok, want)
		}
		for what, a := range answers {
			for _, applying := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/applying=%v", name, what, applying), func(t *testing.T) {
					lookup := func(asked *[]value.Ref) value.Lookup {
						return func(r value.Ref) (any, bool) {
							*asked = append(*asked, r)
							if r == value.Applying {
								return nil, applying
							}
							return a.v, a.ok
						}
					}
					var fastAsked, slowAsked []value.Ref
					fast, ok := e.attrRead(lookup(&fastAsked))
					if !ok {
						return // evaluate's alone
					}
					slow, diags := e.evaluate(lookup(&slowAsked))
					if diags.HasErrors() {
						t.Fatal(diags)
					}
					if !fast.RawEquals(slow) {
						t.Errorf("read %#v, evaluate gives %#v", fast, slow)
					}
					if fmt.Sprint(fastAsked) != fmt.Sprint(slowAsked) {
						t.Errorf("asked %v, evaluate asks %v", fastAsked, slowAsked)
					}
				})
			}
		}
		for _, lookup := range []value.Lookup{nil} {
			fast, ok := e.attrRead(lookup)
			if slow, _ := e.evaluate(lookup); ok && !fast.RawEquals(slow) {
				t.Errorf("%s with nothing known: read %#v, evaluate gives %#v", name, fast, slow)
			}
			if ok && fast != cty.DynamicVal {
				t.Errorf("%s with nothing known: %#v", name, fast)
			}
		}
	}
}
