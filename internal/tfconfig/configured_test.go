package tfconfig_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/tfconfig"
)

// TestForEachFromConfiguredAttribute: for_each over an argument another
// resource's configuration sets (known at plan, though that resource is
// planned in the same run) plans an instance per key, as OpenTofu does,
// and keeps doing so when a plan changes that argument; over an attribute
// known only after apply it is OpenTofu's error.
func TestForEachFromConfiguredAttribute(t *testing.T) {
	main := func(tags string) string {
		return head + `
resource "TP_item" "a" {
  name = "a"
  tags = ` + tags + `
}
resource "TP_item" "b" {
  for_each = TP_item.a.tags
  name     = "b-${each.key}"
  value    = each.value
}
`
	}
	for _, tp := range testProviders {
		t.Run(tp.Type, func(t *testing.T) {
			ty := tp.Type + "_item."
			actions := func(w *world) map[string]string {
				got := map[string]string{}
				for _, c := range w.plan(w.mustLoad(tfconfig.Inputs{})).Changes {
					got[c.ResourceID] = c.Action.String()
				}
				return got
			}
			w := newWorld(t, tp)
			w.write(map[string]string{"main.tf": main(`{ x = "1", y = "2" }`)})
			want := map[string]string{ty + "a": "create", ty + `b["x"]`: "create", ty + `b["y"]`: "create"}
			if diff := cmp.Diff(want, actions(w)); diff != "" {
				t.Fatalf("first plan (-want +got):\n%s", diff)
			}
			w.apply(w.mustLoad(tfconfig.Inputs{}))

			w.write(map[string]string{"main.tf": main(`{ x = "1", y = "2", z = "3" }`)})
			want = map[string]string{ty + "a": "update", ty + `b["x"]`: "no-op", ty + `b["y"]`: "no-op", ty + `b["z"]`: "create"}
			if diff := cmp.Diff(want, actions(w)); diff != "" {
				t.Fatalf("a key added to a's tags (-want +got):\n%s", diff)
			}

			w.write(map[string]string{"main.tf": strings.Replace(main(`{ x = "1" }`), "for_each = TP_item.a.tags", "for_each = toset([TP_item.a.id])", 1)})
			if _, err := w.load(tfconfig.Inputs{}); err == nil || !strings.Contains(err.Error(), "Invalid for_each argument") {
				t.Errorf("for_each over an id known only after apply: %v", err)
			}
		})
	}
}
