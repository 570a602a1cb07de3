package tfconfig_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/tfconfig"
)

// TestImpliedMoves: adding count to a resource keeps its object as [0],
// and removing count keeps [0] as its one object, without a moved block,
// as OpenTofu does; a moved block naming the resource turns that off.
func TestImpliedMoves(t *testing.T) {
	single := `
resource "TP_item" "a" {
  name = "a"
}
`
	counted := `
resource "TP_item" "a" {
  count = 2
  name  = count.index == 0 ? "a" : "b"
  value = "counted"
}
`
	for _, tp := range testProviders {
		t.Run(tp.Type, func(t *testing.T) {
			ty := tp.Type + "_item."
			type planned struct{ Action, MovedFrom string }
			plans := func(w *world) map[string]planned {
				got := map[string]planned{}
				for _, c := range w.plan(w.mustLoad(tfconfig.Inputs{})).Changes {
					got[c.ResourceID] = planned{c.Action.String(), c.MovedFrom}
				}
				return got
			}
			w := newWorld(t, tp)
			w.write(map[string]string{"main.tf": head + single})
			w.apply(w.mustLoad(tfconfig.Inputs{}))

			w.write(map[string]string{"main.tf": head + counted})
			want := map[string]planned{ty + "a[0]": {"update", ty + "a"}, ty + "a[1]": {"create", ""}}
			if diff := cmp.Diff(want, plans(w)); diff != "" {
				t.Fatalf("count added (-want +got):\n%s", diff)
			}
			w.apply(w.mustLoad(tfconfig.Inputs{}))

			w.write(map[string]string{"main.tf": head + single})
			want = map[string]planned{ty + "a": {"update", ty + "a[0]"}, ty + "a[1]": {"destroy", ""}}
			if diff := cmp.Diff(want, plans(w)); diff != "" {
				t.Fatalf("count removed (-want +got):\n%s", diff)
			}

			w.write(map[string]string{"main.tf": head + single + `
moved {
  from = TP_item.a[1]
  to   = TP_item.a
}
`})
			want = map[string]planned{ty + "a": {"replace", ty + "a[1]"}, ty + "a[0]": {"destroy", ""}}
			if diff := cmp.Diff(want, plans(w)); diff != "" {
				t.Errorf("count removed, a moved block keeping [1] (-want +got):\n%s", diff)
			}
		})
	}
}
