package engine_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/value"
)

const outputsBefore = `
variables:
  pw: { type: string, sensitive: true, default: hunter2-secret }
resources:
  net: { type: Vpc, properties: { cidr: 10.0.0.0/16 } }
outputs:
  net_id: "${net}"
  cidr: "10.0.0.0/16"
  pw: "${var.pw}"
  kept: "same"
`

// outputsAfter drops cidr, makes pw a plain text (its old value stays
// masked: it was sensitive when applied), adds a new output and one that
// reads a resource created now.
const outputsAfter = `
resources:
  net: { type: Vpc, properties: { cidr: 10.0.0.0/16 } }
  web: { type: Vm, properties: { image: debian-12, network: "${net}" } }
outputs:
  net_id: "${net}"
  pw: "not a secret"
  kept: "same"
  web_ip: "${web.publicIp}"
  ids: [ "${net}", "${web}" ]
`

// TestOutputChanges: a plan lists the outputs apply adds, changes and
// removes, what is known only after apply as such, and never an output's
// secret, nor an old value state does not record as not sensitive.
func TestOutputChanges(t *testing.T) {
	w := newWorld(t)
	e := w.engine()
	before := parse(t, outputsBefore)

	p := mustPlan(t, e, before)
	want := []plan.OutputChange{
		{Name: "cidr", Action: plan.Create, New: "10.0.0.0/16"},
		{Name: "kept", Action: plan.Create, New: "same"},
		{Name: "net_id", Action: plan.Create, New: value.Unknown, Unknown: true},
		{Name: "pw", Action: plan.Create, New: plan.Masked, Sensitive: true},
	}
	if diff := cmp.Diff(want, p.OutputChanges); diff != "" {
		t.Errorf("first plan's output changes (-want +got):\n%s", diff)
	}
	if got := p.Changes[0].Provider; got != "sim" {
		t.Errorf("the Vpc's provider %q, want sim", got)
	}

	mustApply(t, e, before)
	if got, want := w.state().OutputSensitivity, map[string]bool{"net_id": false, "cidr": false, "pw": true, "kept": false}; !cmp.Equal(got, want) {
		t.Errorf("state's output sensitivity %v, want %v", got, want)
	}
	if p := mustPlan(t, e, before); len(p.OutputChanges) != 0 {
		t.Errorf("a plan of what was applied changes outputs: %+v", p.OutputChanges)
	}

	netID := w.state().Resources["net"].ProviderID
	p = mustPlan(t, e, parse(t, outputsAfter))
	want = []plan.OutputChange{
		{Name: "cidr", Action: plan.Destroy, Old: "10.0.0.0/16"},
		{Name: "ids", Action: plan.Create, New: []any{netID, value.Unknown}, Unknown: true},
		{Name: "pw", Action: plan.Update, Old: plan.Masked, New: "not a secret"},
		{Name: "web_ip", Action: plan.Create, New: value.Unknown, Unknown: true},
	}
	if diff := cmp.Diff(want, p.OutputChanges); diff != "" {
		t.Errorf("second plan's output changes (-want +got):\n%s", diff)
	}

	// A state written before Kyku recorded which outputs are sensitive:
	// every old value is masked.
	st := w.state()
	st.OutputSensitivity = nil
	data, err := state.Encode(st)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.stateDir, "state.json"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	p = mustPlan(t, e, parse(t, outputsAfter))
	for _, oc := range p.OutputChanges {
		if oc.Old != nil && oc.Old != plan.Masked {
			t.Errorf("output %s of a state without sensitivity shows its old value %v", oc.Name, oc.Old)
		}
	}

	// A destroy plan removes every output.
	d, err := e.PlanDestroy(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(d.OutputChanges) != 4 || d.OutputChanges[0].Action != plan.Destroy {
		t.Errorf("destroy plan's output changes %+v", d.OutputChanges)
	}
}
