package tfstate_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/tfstate"
)

// TestBridgeInterrupted: the creates an apply left interrupted are kept
// beside the state (Extra) and read back; once OpenTofu wrote the state
// since, they still apply, but for an address tofu has recorded an object
// at (tofu import); an Extra of another lineage gives none.
func TestBridgeInterrupted(t *testing.T) {
	_, b, st := bridged(t, "testdata/recorded/lifecycle.remote.tfstate", tfstate.BridgeOptions{})
	st.Metadata.Serial++
	st.Interrupted = map[string]string{"random_pet.base": "random_pet", "random_pet.new": "random_pet"}
	f, extra, err := b.File(st)
	if err != nil {
		t.Fatal(err)
	}
	data, err := tfstate.EncodeExtra(extra)
	if err != nil {
		t.Fatal(err)
	}
	back, err := tfstate.DecodeExtra("extra", data)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		tofu  bool   // OpenTofu wrote the state since
		other string // another lineage
		want  map[string]string
	}{
		{name: "as kyku wrote it", want: st.Interrupted},
		{name: "tofu wrote since", tofu: true, want: map[string]string{"random_pet.new": "random_pet"}},
		{name: "another lineage", tofu: true, other: "another"},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := *f
			if c.tofu {
				g.Serial++
			}
			if c.other != "" {
				g.Lineage = c.other
			}
			nb, err := tfstate.NewBridge(&g, tfstate.BridgeOptions{Extra: back})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(c.want, nb.State().Interrupted); d != "" {
				t.Errorf("interrupted (-want +got):\n%s", d)
			}
			// Every later State is a copy of the first: it keeps them too.
			if d := cmp.Diff(c.want, nb.State().Interrupted); d != "" {
				t.Errorf("interrupted, the second State (-want +got):\n%s", d)
			}
		})
	}
}
