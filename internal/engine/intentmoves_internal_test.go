package engine

import (
	"testing"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/state"
)

// TestImpliedMoveOfAnIntentRefused: in a Terraform configuration, an
// interrupted create's intent alone at a name OpenTofu would move without
// a moved block (count added or removed) is refused, naming kyku state
// mv: the new name would be created again beside the object. A moved
// block naming the resource, or a YAML configuration, moves nothing so.
func TestImpliedMoveOfAnIntentRefused(t *testing.T) {
	const typ = "fwtest_item"
	for _, c := range []struct {
		name       string
		terraform  bool
		configured []string
		moved      []*config.Moved
		intent     string
		want       string
	}{
		{name: "count added", terraform: true, configured: []string{"fwtest_item.a[0]"}, intent: "fwtest_item.a",
			want: "fwtest_item.a: an apply was interrupted while creating it and the object it may have made is in no state; the configuration now names it fwtest_item.a[0] (count added or removed), which would be created again: " +
				"carry its intent with kyku state mv fwtest_item.a 'fwtest_item.a[0]', then import it there or drop the intent (kyku apply --forget-interrupted 'fwtest_item.a[0]')"},
		{name: "count removed", terraform: true, configured: []string{"fwtest_item.a"}, intent: "fwtest_item.a[0]",
			want: "fwtest_item.a[0]: an apply was interrupted while creating it and the object it may have made is in no state; the configuration now names it fwtest_item.a (count added or removed), which would be created again: " +
				"carry its intent with kyku state mv 'fwtest_item.a[0]' fwtest_item.a, then import it there or drop the intent (kyku apply --forget-interrupted fwtest_item.a)"},
		{name: "still configured", terraform: true, configured: []string{"fwtest_item.a", "fwtest_item.a[0]"}, intent: "fwtest_item.a"},
		{name: "a moved block chose", terraform: true, configured: []string{"fwtest_item.a[0]"}, intent: "fwtest_item.a",
			moved: []*config.Moved{{From: "fwtest_item.a", To: "fwtest_item.b"}}},
		{name: "yaml", configured: []string{"a[0]"}, intent: "a"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := &config.Config{Terraform: c.terraform, Moved: c.moved}
			for _, n := range c.configured {
				cfg.Resources = append(cfg.Resources, &config.Resource{Name: n, Type: typ})
			}
			st := state.New("p", "l", "")
			st.Interrupted = map[string]string{c.intent: typ}
			if got := errText(refuseImpliedIntentMoves(cfg, st)); got != c.want {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
		})
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
