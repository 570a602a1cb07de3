package tfstate_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/tfstate"
	"github.com/kyku/action/internal/value"
)

// scribble changes every value of st in place, nested ones included, as
// an engine changing the state it was handed might.
func scribble(st *state.File) {
	var deep func(v any) any
	deep = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			if x == nil {
				return x
			}
			for k, e := range x {
				x[k] = deep(e)
			}
			x["scribbled"] = true
			return x
		case []any:
			for i, e := range x {
				x[i] = deep(e)
			}
			return x
		}
		return "scribbled"
	}
	for _, r := range st.Resources {
		deep(r.Outputs)
		if r.Config != nil {
			deep(r.Config)
		}
		r.ProviderID, r.Dependencies = "scribbled", append(r.Dependencies, "scribbled")
		if r.Basis != nil {
			r.Basis.Config = "scribbled"
		}
	}
	deep(st.Outputs)
	deep(st.OutputTypes)
	st.Metadata.Serial += 10
}

// TestBridgeStateIsTheCallersToChange: the state the bridge hands out is
// the caller's: changing it, nested values included, changes neither the
// state a later call hands out nor what the bridge writes for a state
// with nothing changed (every byte as OpenTofu wrote it).
func TestBridgeStateIsTheCallersToChange(t *testing.T) {
	for _, name := range []string{"basic", "sensitive", "lifecycle", "counts"} {
		t.Run(name, func(t *testing.T) {
			path := "testdata/recorded/" + name + ".remote.tfstate"
			// What Kyku kept beside the state (a configuration and a basis
			// for every object) is handed out too.
			_, b0, st0 := bridged(t, path, tfstate.BridgeOptions{})
			for _, r := range st0.Resources {
				r.Config, r.Basis = map[string]any{"nested": map[string]any{"n": 1.0}}, &state.Basis{Config: "c", Provider: "p"}
			}
			f, extra, err := b0.File(st0)
			if err != nil {
				t.Fatal(err)
			}
			b, err := tfstate.NewBridge(f, tfstate.BridgeOptions{Extra: extra})
			if err != nil {
				t.Fatal(err)
			}
			first := b.State()
			want := first.Clone()
			scribble(first)
			second := b.State()
			if d := cmp.Diff(want, second); d != "" {
				t.Fatalf("the second state after the first was changed (-want +got):\n%s", d)
			}
			scribble(second)
			if d := cmp.Diff(want, b.State()); d != "" {
				t.Fatalf("the third state after the second was changed (-want +got):\n%s", d)
			}
			again, _, err := b.File(want)
			if err != nil {
				t.Fatal(err)
			}
			wantData, err := tfstate.Encode(f, tfstate.Compact)
			if err != nil {
				t.Fatal(err)
			}
			gotData, err := tfstate.Encode(again, tfstate.Compact)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(string(wantData), string(gotData)); d != "" {
				t.Errorf("the state written for an unchanged one (-want +got):\n%s", d)
			}
		})
	}
}

// TestDecodeExtraIsCanonical: the configurations DecodeExtra reads are in
// Kyku's canonical model as decoded (numbers float64, lists []any, maps
// map[string]any), as the plan's comparisons need them, without a copy.
func TestDecodeExtraIsCanonical(t *testing.T) {
	config := map[string]any{"n": 3, "f": 1.5, "list": []string{"a"}, "map": map[string]string{"k": "v"}, "nested": []any{map[string]any{"i": int64(7)}}, "null": nil, "yes": true}
	data, err := tfstate.EncodeExtra(&tfstate.Extra{Lineage: "l", Serial: 1, Resources: map[string]*tfstate.ExtraResource{"a.b": {Config: config}}})
	if err != nil {
		t.Fatal(err)
	}
	e, err := tfstate.DecodeExtra("extra", data)
	if err != nil {
		t.Fatal(err)
	}
	got := e.Resources["a.b"].Config
	if d := cmp.Diff(value.Normalize(config), got); d != "" {
		t.Errorf("(-canonical +decoded):\n%s", d)
	}
}
