package value_test

import (
	"encoding/json"
	"math/big"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/value"
)

// TestNumber: a number a float64 shows as it is stays a float64; one it
// would round (2^53+1, 1/3 at Terraform's 512 bits) keeps its exact
// decimal text, which JSON writes, equality compares and reading JSON
// back keeps.
func TestNumber(t *testing.T) {
	third := new(big.Float).SetPrec(512).Quo(big.NewFloat(1).SetPrec(512), big.NewFloat(3).SetPrec(512))
	parse := func(s string) *big.Float {
		f, _, err := big.ParseFloat(s, 10, 512, big.ToNearestEven)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	for _, tc := range []struct {
		name string
		in   *big.Float
		want any
		json string
	}{
		{"an integer", parse("42"), 42.0, "42"},
		{"a decimal", parse("12.4"), 12.4, "12.4"},
		{"2^53", parse("9007199254740992"), 9007199254740992.0, "9007199254740992"},
		{"2^53+1", parse("9007199254740993"), json.Number("9007199254740993"), "9007199254740993"},
		{"one third", third, json.Number(third.Text('f', -1)), third.Text('f', -1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := value.Number(tc.in)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("Number (-want +got):\n%s", diff)
			}
			b, err := value.AppendJSON(nil, map[string]any{"n": got})
			if err != nil {
				t.Fatal(err)
			}
			if want := `{"n":` + tc.json + `}`; string(b) != want {
				t.Errorf("JSON %s, want %s", b, want)
			}
			back := value.Normalize(json.Number(tc.json))
			if !value.Equal(back, got) {
				t.Errorf("read back from JSON: %#v, want %#v", back, got)
			}
			if exact, _ := value.BigFloat(got); exact.Cmp(tc.in) != 0 {
				t.Errorf("BigFloat %s, want %s", exact.Text('g', 40), tc.in.Text('g', 40))
			}
		})
	}
	if value.Equal(json.Number("9007199254740993"), 9007199254740992.0) {
		t.Error("2^53+1 equals 2^53")
	}
	if len(third.Text('f', -1)) < 100 || !strings.HasPrefix(third.Text('f', -1), "0.3333") {
		t.Errorf("one third at 512 bits: %s", third.Text('f', -1))
	}
}
