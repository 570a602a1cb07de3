package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/sim"
	"github.com/kyku/action/internal/statemgr/local"
)

// simEngine is world.engine on a provider of the caller's choice: the
// plain simulator, or its bulk-listing form (sim.Open with Bulk).
func (w *world) simEngine(p provider.Provider, mods ...func(*engine.Options)) *engine.Engine {
	w.t.Helper()
	if err := os.MkdirAll(w.stateDir, 0o755); err != nil {
		w.t.Fatal(err)
	}
	eo := engine.Options{RetryBase: time.Millisecond, RetryMax: 5 * time.Millisecond, Hook: w.events, DeployPrefix: "test"}
	for _, m := range mods {
		m(&eo)
	}
	return engine.New(p, local.New(w.stateDir, "", local.Options{LockTimeout: 2 * time.Second}), eo)
}

// openSim opens the world's simulator, listing in bulk or not, and
// returns it with the plain Provider that counts its calls.
func (w *world) openSim(bulk bool) (provider.Provider, *sim.Provider) {
	w.t.Helper()
	opts := w.simOpts
	opts.Dir, opts.Bulk, opts.PageSize = w.simDir, bulk, 2
	p, err := sim.Open(opts)
	if err != nil {
		w.t.Fatal(err)
	}
	if b, ok := p.(sim.Bulk); ok {
		return b, b.Provider
	}
	return p, p.(*sim.Provider)
}

// renameSimObject changes an object's cloud name behind Kyku's back, so a
// list by the deploy prefix no longer shows it (as an untagged or adopted
// object would be missed); its ID and properties stay.
func renameSimObject(t *testing.T, w *world, typ, cloudName string) {
	t.Helper()
	f := simFile(t, w, typ)
	data, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	var o map[string]any
	if err := json.Unmarshal(data, &o); err != nil {
		t.Fatal(err)
	}
	o["cloudName"] = cloudName
	if data, err = json.Marshal(o); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Discovery gives the same plan whether the provider lists in bulk or
// not: an object the list misses is read on its own and found, one that
// is truly gone is read on its own and planned for creation, drift shows
// either way. Only the calls differ.
func TestDiscoveryBulkAndPerResource(t *testing.T) {
	for _, tc := range []struct {
		bulk      bool
		wantCalls sim.Calls
	}{
		// 5 resources read one by one.
		{bulk: false, wantCalls: sim.Calls{Read: 5}},
		// One page for each of the 5 types (the renamed Subnet's list is
		// empty), then one Read each for the renamed and the gone object.
		{bulk: true, wantCalls: sim.Calls{List: 5, Read: 2}},
	} {
		name := map[bool]string{false: "per-resource", true: "bulk"}[tc.bulk]
		t.Run(name, func(t *testing.T) {
			w := newWorld(t)
			mustApply(t, w.engine(), parse(t, stack))
			renameSimObject(t, w, "Subnet", "adopted-sub") // missed by the list, still there
			deleteSimObject(t, w, "SshKey")                // truly gone
			editSimObject(t, w, "SecurityGroup", func(props map[string]any) {
				props["ingress"].([]any)[0].(map[string]any)["port"] = 22
			})
			p, counter := w.openSim(tc.bulk)
			_, isBulk := p.(sim.Bulk)
			if isBulk != tc.bulk {
				t.Fatalf("provider %T: bulk %v, want %v", p, isBulk, tc.bulk)
			}
			pl := mustPlanAll(t, w.simEngine(p), parse(t, stack))
			want := []string{"create SshKey key", "update SecurityGroup sg"}
			if d := cmp.Diff(want, actions(pl)); d != "" {
				t.Errorf("plan (-want +got):\n%s", d)
			}
			for _, c := range pl.Changes {
				if c.ResourceID == "key" && c.Reason != "gone from the cloud" {
					t.Errorf("key: reason %q, want gone from the cloud", c.Reason)
				}
			}
			if d := cmp.Diff(tc.wantCalls, counter.Calls()); d != "" {
				t.Errorf("calls (-want +got):\n%s", d)
			}
		})
	}
}

// Refresh discovers through the same path: drift and gone objects are
// reported alike in bulk mode.
func TestRefreshInBulk(t *testing.T) {
	w := newWorld(t)
	mustApply(t, w.engine(), parse(t, stack))
	deleteSimObject(t, w, "SshKey")
	editSimObject(t, w, "Vm", func(props map[string]any) { props["size"] = "large" })
	p, counter := w.openSim(true)
	res, err := w.simEngine(p).Refresh(t.Context(), engine.RefreshOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range res.Drift {
		s := d.Name
		if d.Gone {
			s += ": gone"
		}
		for _, pc := range d.Properties {
			s += ": " + pc.Path
		}
		got = append(got, s)
	}
	if d := cmp.Diff([]string{"key: gone", "web: size"}, got); d != "" {
		t.Errorf("drift (-want +got):\n%s", d)
	}
	if c := counter.Calls(); c.Read != 1 || c.List != 5 {
		t.Errorf("calls %+v, want 5 list pages and one Read (the gone key)", c)
	}
}

// flakyBulk is a bulk sim whose first ReadMany fails transiently and
// which then answers one ref with an object of another ID (a provider
// bug the engine must not trust).
type flakyBulk struct {
	sim.Bulk
	calls atomic.Int32
	wrong string // ID whose answer is replaced
}

func (f *flakyBulk) ReadMany(ctx context.Context, prefix string, refs []provider.Ref) (map[provider.Ref]provider.Object, error) {
	if f.calls.Add(1) == 1 {
		return nil, provider.Transient(errors.New("list: 503"))
	}
	out, err := f.Bulk.ReadMany(ctx, prefix, refs)
	for ref, o := range out {
		if ref.ID == f.wrong {
			o.ID = "99999999"
			out[ref] = o
		}
	}
	return out, err
}

// A transient bulk failure is retried; an answer naming another ID is not
// taken, the object is read on its own instead.
func TestBulkReadRetriedAndChecked(t *testing.T) {
	w := newWorld(t)
	mustApply(t, w.engine(), parse(t, stack))
	p, counter := w.openSim(true)
	f := &flakyBulk{Bulk: p.(sim.Bulk), wrong: w.state().Resources["web"].ProviderID}
	pl := mustPlanAll(t, w.simEngine(f), parse(t, stack))
	if got := actions(pl); len(got) != 0 {
		t.Errorf("plan %v, want no changes", got)
	}
	if f.calls.Load() != 2 || counter.Calls().Read != 1 {
		t.Errorf("ReadMany calls %d, Reads %d; want 2 (one retry) and 1 (the Vm)", f.calls.Load(), counter.Calls().Read)
	}
}

// A permanent bulk failure aborts the plan with an error saying so.
type brokenBulk struct{ *sim.Provider }

func (brokenBulk) ReadMany(context.Context, string, []provider.Ref) (map[provider.Ref]provider.Object, error) {
	return nil, errors.New("AccessDenied: not allowed to list")
}

func TestBulkReadFailureAbortsPlan(t *testing.T) {
	w := newWorld(t)
	mustApply(t, w.engine(), parse(t, stack))
	_, counter := w.openSim(false)
	_, err := w.simEngine(brokenBulk{counter}).PlanWith(t.Context(), parse(t, stack), engine.PlanOptions{Refresh: engine.RefreshAll})
	if err == nil || !strings.Contains(err.Error(), "read 5 resources in bulk: AccessDenied") {
		t.Fatalf("err = %v, want the bulk failure", err)
	}
	if counter.Calls().Read != 0 {
		t.Errorf("%d Reads after a failed bulk read, want none", counter.Calls().Read)
	}
}
