package tfstate_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/tfstate"
)

// TestBridgeSensitiveStepNames: a get_attr step inside an attribute is
// kept as a .name part only when its name is an identifier, as Kyku
// writes a .name step (value.Identifier); a name that starts with a digit
// or holds a dash makes the attribute secret whole, never less secret.
func TestBridgeSensitiveStepNames(t *testing.T) {
	for _, tt := range []struct {
		step       string
		wantWithin map[string][]string
	}{
		{"ok", map[string][]string{"triggers": {".ok"}}},
		{"_1", map[string][]string{"triggers": {"._1"}}},
		{"0day", nil},
		{"a-b", nil},
	} {
		t.Run(tt.step, func(t *testing.T) {
			f, err := tfstate.Decode("x", []byte(instance(`"attributes":{"id":"1","triggers":{"`+tt.step+`":"s"}},"sensitive_attributes":[`+
				`[{"type":"get_attr","value":"triggers"},{"type":"get_attr","value":"`+tt.step+`"}]]`)))
			if err != nil {
				t.Fatal(err)
			}
			b, err := tfstate.NewBridge(f, tfstate.BridgeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			r := b.State().Resources["null_resource.a"]
			if d := cmp.Diff(tt.wantWithin, r.SensitiveWithin); d != "" || len(r.Sensitive) != 1 {
				t.Errorf("sensitive %v, within (-want +got):\n%s", r.Sensitive, d)
			}
		})
	}
}
