package engine

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/provider/sim"
	"github.com/kyku/action/internal/state"
)

// TestSettleKeepsItsDigest: settle keeps, with each resolution, the basis
// it digested, which the plan's later checks of an untouched resource
// (readLevel, asBefore) take instead of digesting the same properties
// twice more; a resource with no record of its last apply has none.
func TestSettleKeepsItsDigest(t *testing.T) {
	prov, err := sim.Factory(t.Context(), map[string]string{"dir": filepath.Join(t.TempDir(), "sim")}, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	e := New(prov, nil, Options{})
	key := func(name string) *config.Resource {
		return &config.Resource{Name: name, Type: "SshKey", Properties: map[string]any{"public_key": "ssh-ed25519 AAAA " + name}}
	}
	cfg := &config.Config{Resources: []*config.Resource{key("kept"), key("new")}}
	applied, ok := e.basisOf(cfg, cfg.Resources[0], cfg.Resources[0].Properties, time.Unix(0, 0))
	if !ok {
		t.Fatal("no basis")
	}
	st := state.New("p", "l", "")
	st.Resources["kept"] = &state.Resource{Name: "kept", Type: "SshKey", ProviderID: "k-1", Basis: applied}

	x := newPlanning(e, cfg, st, PlanOptions{})
	x.settle()
	if !x.same["kept"] || x.memo["kept"] == nil || !x.memo["kept"].basisOf().Same(applied) {
		t.Errorf("kept: same %v, settle's basis %+v; want the applied one %+v", x.same["kept"], x.memo["kept"].basisOf(), applied)
	}
	if x.same["new"] || x.memo["new"].basisOf() != nil {
		t.Errorf("new: same %v, basis %+v; want neither", x.same["new"], x.memo["new"].basisOf())
	}
}
