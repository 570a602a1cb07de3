package hetzner_test

import (
	"strings"
	"testing"

	"github.com/kyku/action/internal/provider/hetzner/hcloudtest"
)

// A resize the API would refuse (change_type needs the same architecture
// and storage type and a disk at least as large: Hetzner Cloud API
// reference, Server Actions, Change the Type of a Server) is refused
// before the server is powered off; planning replaces the server instead
// (PlanChange, held by the conformance suite's agreement). A resize it takes powers off,
// changes the type and starts again.
func TestResizeRefusedWithoutPoweringOff(t *testing.T) {
	e := setup(t)
	ctx := t.Context()
	_, sub, _, vm := stack(t, e)
	big := mustCreate(t, e.p, res("Vm", "big", map[string]any{"network": vm.Properties["network"], "subnet": sub.ID, "image": "debian-12", "size": "medium"}))
	for _, tc := range []struct{ id, from, to, want string }{
		{vm.ID, "small", "cax11", "cannot change architecture"},
		{big.ID, "medium", "small", "disk cannot shrink"}, // made as cx33: 80 GB
	} {
		r := res("Vm", "vm", map[string]any{"network": vm.Properties["network"], "subnet": sub.ID, "image": "debian-12"})
		if tc.id == vm.ID {
			r.Properties["securityGroups"] = vm.Properties["securityGroups"]
		} else {
			r.Name, r.CloudName = "big", "kyku0001-big"
		}
		offs := e.cloud.Calls("POST /servers/{id}/actions/poweroff")
		r.Properties["size"] = tc.to
		_, err := e.p.Update(ctx, tc.id, r)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s → %s: err = %v, want %q", tc.from, tc.to, err, tc.want)
		}
		if n := e.cloud.Calls("POST /servers/{id}/actions/poweroff") - offs; n != 0 {
			t.Errorf("%s → %s: the server was powered off %d times for a change the API refuses", tc.from, tc.to, n)
		}
		e.cloud.Edit(func(st *hcloudtest.State) {
			for _, s := range st.Servers {
				if s.Status != "running" {
					t.Errorf("%s → %s: server %s is %s", tc.from, tc.to, s.Name, s.Status)
				}
			}
		})
	}
}
