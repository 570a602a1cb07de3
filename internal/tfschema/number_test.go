package tfschema

import (
	"encoding/json"
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// TestNumbersRoundTrip: a provider's number a float64 cannot hold
// (2^53+1) is read into a canonical value and handed back to a provider
// (a number attribute, a dynamic one) without losing a digit.
func TestNumbersRoundTrip(t *testing.T) {
	exact := cty.MustParseNumberVal("9007199254740993")
	got := FromCty(exact)
	if got != json.Number("9007199254740993") {
		t.Fatalf("FromCty(2^53+1) = %#v", got)
	}
	ty := cty.Object(map[string]cty.Type{"n": cty.Number, "d": cty.DynamicPseudoType})
	v, err := ToCty(map[string]any{"n": got, "d": got}, ty)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"n", "d"} {
		if a := v.GetAttr(name); !a.RawEquals(exact) {
			t.Errorf("ToCty %s = %#v, want %#v", name, a, exact)
		}
	}
	if got := FromCty(cty.NumberIntVal(42)); got != 42.0 {
		t.Errorf("FromCty(42) = %#v, want the float64 42", got)
	}
}
