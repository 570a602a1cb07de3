package engine_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/progress"
	"github.com/kyku/action/internal/state"
)

// staleID rewrites the state so that resource name carries its Kyku name as
// provider ID, as early versions recorded it, and returns the real ID.
func staleID(t *testing.T, w *world, name string) string {
	t.Helper()
	st := w.state()
	real := st.Resources[name].ProviderID
	st.Resources[name].ProviderID = name
	data, err := state.Encode(st)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.stateDir, "state.json"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	return real
}

var withoutKey = variant("  key:\n    type: SshKey\n    properties: { publicKey: \"ssh-ed25519 AAAA test\" }\n", "")

// A resource with a stale provider ID that is removed from the config is
// found by name and destroyed in the cloud, not forgotten while it lives on.
func TestStaleIDRemovedFromConfigIsDestroyed(t *testing.T) {
	w := newWorld(t)
	e := w.engine()
	mustApply(t, e, parse(t, stack))
	real := staleID(t, w, "key")

	p := mustPlan(t, e, parse(t, withoutKey))
	if diff := cmp.Diff([]string{"destroy SshKey key"}, actions(p)); diff != "" {
		t.Fatalf("plan (-want +got):\n%s", diff)
	}
	if got := p.Changes[len(p.Changes)-1].ProviderID; got != real {
		t.Errorf("destroy targets provider ID %q, want the one found by name %q", got, real)
	}
	mustApply(t, e, parse(t, withoutKey))
	want := []string{"SecurityGroup/test-sg", "Subnet/test-sub", "Vm/test-web", "Vpc/test-net"}
	if diff := cmp.Diff(want, w.cloud()); diff != "" {
		t.Errorf("cloud after apply (-want +got):\n%s", diff)
	}
	if _, ok := w.state().Resources["key"]; ok {
		t.Error("destroyed resource still in state")
	}
}

// A resource with a stale provider ID that stays in the config is adopted:
// found by name, no create, its real ID recorded by the apply. References to
// it resolve to the real ID too, so its dependents are no-ops.
func TestStaleIDKeptInConfigIsAdopted(t *testing.T) {
	w := newWorld(t)
	e := w.engine()
	mustApply(t, e, parse(t, stack))
	realNet := staleID(t, w, "net")
	realKey := staleID(t, w, "key")

	p := mustPlanAll(t, e, parse(t, stack))
	if p.HasChanges() {
		t.Fatalf("plan of adopted resources has changes: %v", actions(p))
	}
	for _, c := range p.Changes {
		if c.ResourceID == "key" && (c.ProviderID != realKey || !strings.Contains(c.Reason, "found by name")) {
			t.Errorf("key's change: provider ID %q, reason %q; want %q found by name", c.ProviderID, c.Reason, realKey)
		}
	}
	mustApplyAll(t, e, parse(t, stack))
	st := w.state()
	if got := st.Resources["key"].ProviderID; got != realKey {
		t.Errorf("key's provider ID in state = %q, want %q", got, realKey)
	}
	if got := st.Resources["net"].ProviderID; got != realNet {
		t.Errorf("net's provider ID in state = %q, want %q", got, realNet)
	}
	want := []string{"SecurityGroup/test-sg", "SshKey/test-key", "Subnet/test-sub", "Vm/test-web", "Vpc/test-net"}
	if diff := cmp.Diff(want, w.cloud()); diff != "" {
		t.Errorf("cloud (-want +got):\n%s", diff)
	}
	// From now on it is an ordinary resource: a change is an update by its real ID.
	p = mustPlan(t, e, parse(t, variant("port: 443", "port: 8443")))
	if diff := cmp.Diff([]string{"update SecurityGroup sg"}, actions(p)); diff != "" {
		t.Errorf("plan after adoption (-want +got):\n%s", diff)
	}
}

// Refresh resolves a stale provider ID by name too, and records the real one.
func TestRefreshResolvesStaleID(t *testing.T) {
	w := newWorld(t)
	e := w.engine()
	mustApply(t, e, parse(t, stack))
	real := staleID(t, w, "key")
	res, err := e.Refresh(t.Context(), engine.RefreshOptions{WriteState: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range res.Drift {
		if d.Gone {
			t.Errorf("refresh calls %s gone", d.Name)
		}
	}
	if got := w.state().Resources["key"].ProviderID; got != real {
		t.Errorf("provider ID after refresh = %q, want %q", got, real)
	}
}

// A dependsOn added to a resource that is otherwise unchanged reaches the
// state, and a later destroy waits for the dependent before the dependency.
func TestDependsOnAddedToNoOpReachesState(t *testing.T) {
	w := newWorld(t)
	e := w.engine()
	mustApply(t, e, parse(t, stack))
	withDep := strings.Replace(stack, "  sg:\n", "  sg:\n    dependsOn: [ key ]\n", 1)

	p := mustPlan(t, e, parse(t, withDep))
	if p.HasChanges() {
		t.Fatalf("a new dependsOn is not a cloud change: %v", actions(p))
	}
	res := mustApply(t, e, parse(t, withDep))
	if res.SerialAfter != res.SerialBefore+1 {
		t.Errorf("serial %d → %d: the new dependency was not written", res.SerialBefore, res.SerialAfter)
	}
	if diff := cmp.Diff([]string{"key", "net"}, w.state().Resources["sg"].Dependencies); diff != "" {
		t.Fatalf("sg's dependencies in state (-want +got):\n%s", diff)
	}
	if p := mustPlan(t, e, parse(t, withDep)); p.HasChanges() {
		t.Errorf("changes after apply: %v", actions(p))
	}

	w.events.reset()
	if res, err := e.Destroy(t.Context(), engine.ApplyOptions{AutoApprove: true}); err != nil || res.Err() != nil {
		t.Fatalf("destroy: %v / %v", err, res.Err())
	}
	pos := map[string]int{}
	for i, ev := range w.events.order(progress.Started, progress.Done) {
		pos[ev] = i
	}
	if pos["done destroy sg"] > pos["started destroy key"] {
		t.Errorf("key was destroyed before sg, which depends on it: %v", w.events.order(progress.Started, progress.Done))
	}
}

// protect: true added to an unchanged resource reaches the state, so that
// destroying everything refuses it.
func TestProtectAddedToNoOpReachesState(t *testing.T) {
	w := newWorld(t)
	e := w.engine()
	mustApply(t, e, parse(t, stack))
	mustApply(t, e, parse(t, strings.Replace(stack, "  key:\n", "  key:\n    protect: true\n", 1)))
	if _, err := e.Destroy(t.Context(), engine.ApplyOptions{AutoApprove: true}); err == nil || !strings.Contains(err.Error(), `"key" is protected`) {
		t.Fatalf("destroy after protect was added: err = %v", err)
	}
	if got := len(w.cloud()); got != 5 {
		t.Errorf("refused destroy changed the cloud: %d objects", got)
	}
}

// The zero ApplyOptions never applies: neither AutoApprove nor Confirm is
// refused before anything is locked or changed.
func TestZeroApplyOptionsRefused(t *testing.T) {
	w := newWorld(t)
	e := w.engine()
	if _, err := e.Apply(t.Context(), parse(t, stack), engine.ApplyOptions{}, nil); err != engine.ErrNotApproved {
		t.Fatalf("apply with zero options: err = %v, want ErrNotApproved", err)
	}
	if got := w.cloud(); len(got) != 0 {
		t.Fatalf("unapproved apply changed the cloud: %v", got)
	}
	if _, err := os.Stat(filepath.Join(w.stateDir, "state.json")); !os.IsNotExist(err) {
		t.Errorf("unapproved apply wrote a state (%v)", err)
	}
	mustApply(t, e, parse(t, stack))
	if _, err := e.Destroy(t.Context(), engine.ApplyOptions{}); err != engine.ErrNotApproved {
		t.Fatalf("destroy with zero options: err = %v, want ErrNotApproved", err)
	}
	if got := len(w.cloud()); got != 5 {
		t.Errorf("unapproved destroy changed the cloud: %d objects", got)
	}
	// Confirm alone decides.
	res, err := e.Apply(t.Context(), parse(t, variant("port: 443", "port: 8443")), engine.ApplyOptions{
		Confirm: func(*plan.Plan) (bool, error) { return true, nil },
	}, nil)
	if err != nil || res.Err() != nil || len(res.Succeeded) != 1 {
		t.Fatalf("apply confirmed by callback: %v / %v", err, res)
	}
}
