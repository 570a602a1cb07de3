package engine_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/provider/sim"
	"github.com/kyku/action/internal/statemgr/local"
)

// store is every file of the sim's cloud, by path: what a refused apply
// must leave byte for byte as it was.
func (w *world) store() map[string]string {
	w.t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(w.simDir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		out[path] = string(data)
		return err
	})
	if err != nil {
		w.t.Fatal(err)
	}
	return out
}

// withConfig is p with cfg's configuration embedded instead of its own, as
// an attacker who can write the file would make it: hashes recomputed, so
// the file verifies.
func withConfig(p *plan.Plan, cfg *config.Config) *plan.Plan {
	q := *p
	q.Config, q.ConfigHash, q.VariablesHash, q.SecretsHash = cfg, cfg.Hash(), cfg.VariablesHash(), cfg.SecretsHash()
	return &q
}

// TestEditedSavedPlanIsRefused: a saved plan whose changes are not what
// its own configuration plans against the current state is refused under
// the lock, naming the first difference, and nothing changes in the state
// or in the cloud. Each edit here keeps the file valid (digest, counters
// and config hash recomputed), so only planning again catches it.
func TestEditedSavedPlanIsRefused(t *testing.T) {
	large := variant("size: small", "size: large")
	for _, tt := range []struct {
		name string
		make func(t *testing.T, e *engine.Engine) *plan.Plan
		want string
	}{
		{
			// The reviewer sees small → large; the file would apply small.
			name: "changes edited: shows large, config says small",
			make: func(t *testing.T, e *engine.Engine) *plan.Plan {
				return withConfig(mustPlan(t, e, parse(t, large)), parse(t, stack))
			},
			want: `the file says update "web", planning again says no-op`,
		},
		{
			// The reviewer sees no change; the file would apply large.
			name: "configuration edited: shows nothing, config says large",
			make: func(t *testing.T, e *engine.Engine) *plan.Plan {
				return withConfig(mustPlan(t, e, parse(t, stack)), parse(t, large))
			},
			want: `the file says no-op "web", planning again says update`,
		},
		{
			name: "property edited",
			make: func(t *testing.T, e *engine.Engine) *plan.Plan {
				p := mustPlan(t, e, parse(t, large))
				for i, c := range p.Changes {
					if c.ResourceID == "web" {
						p.Changes[i].Properties[0].New = "medium"
					}
				}
				return p
			},
			want: `update "web": the file shows size: small → medium, planning again size: small → large`,
		},
		{
			// A no-op flipped to destroy, counted, so "1 to destroy" shows.
			name: "no-op flipped to destroy",
			make: func(t *testing.T, e *engine.Engine) *plan.Plan {
				p := mustPlan(t, e, parse(t, stack))
				for i, c := range p.Changes {
					if c.ResourceID == "net" {
						p.Changes[i].Action = plan.Destroy
					}
				}
				p.Count()
				return p
			},
			want: `the file says destroy "net", planning again says no-op`,
		},
		{
			// The reviewer sees no change; the file asks to replace web.
			name: "--replace added",
			make: func(t *testing.T, e *engine.Engine) *plan.Plan {
				p := mustPlan(t, e, parse(t, stack))
				p.Replace = []string{"web"}
				return p
			},
			want: `the file says no-op "web", planning again says replace`,
		},
		{
			// The reviewer sees web replaced; the file would keep it.
			name: "--replace dropped",
			make: func(t *testing.T, e *engine.Engine) *plan.Plan {
				p, err := e.PlanWith(t.Context(), parse(t, stack), engine.PlanOptions{Replace: []string{"web"}})
				if err != nil {
					t.Fatal(err)
				}
				p.Replace = nil
				return p
			},
			want: `the file says replace "web", planning again says no-op`,
		},
		{
			name: "change dropped",
			make: func(t *testing.T, e *engine.Engine) *plan.Plan {
				p := mustPlan(t, e, parse(t, large))
				var kept []plan.Change
				for _, c := range p.Changes {
					if c.ResourceID != "web" {
						kept = append(kept, c)
					}
				}
				p.Changes = kept
				p.Count()
				return p
			},
			want: `planning again says update "web", the file does not list it`,
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			e := w.engine()
			mustApply(t, e, parse(t, stack))
			p := tt.make(t, e)
			state, store := w.stateBytes(), w.store()
			for _, via := range []string{"in memory", "through a plan file"} {
				saved := p
				if via != "in memory" {
					saved = roundTrip(t, p)
				}
				confirmed := false
				_, err := e.Apply(t.Context(), nil, engine.ApplyOptions{AutoApprove: true, Confirm: func(*plan.Plan) (bool, error) {
					confirmed = true
					return true, nil
				}}, saved)
				var m *engine.MismatchError
				if !errors.As(err, &m) || !engine.IsStale(err) || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("%s: err = %v, want a mismatch saying %q", via, err, tt.want)
				}
				if confirmed {
					t.Errorf("%s: the refused plan was shown for confirmation", via)
				}
				if !bytes.Equal(state, w.stateBytes()) {
					t.Errorf("%s: the refused plan changed the state", via)
				}
				if diff := cmp.Diff(store, w.store()); diff != "" {
					t.Errorf("%s: the refused plan changed the cloud:\n%s", via, diff)
				}
			}
		})
	}
}

// TestSavedPlanAppliesWhatItShows: an untouched saved plan is planned
// again, and what Confirm is shown and what is applied has the file's
// changes digest.
func TestSavedPlanAppliesWhatItShows(t *testing.T) {
	w := newWorld(t)
	e := w.engine()
	mustApply(t, e, parse(t, stack))
	saved := roundTrip(t, mustPlan(t, e, parse(t, variant("size: small", "size: large"))))
	want, _ := plan.ChangesDigest(saved)
	var shown string
	res, err := e.Apply(t.Context(), nil, engine.ApplyOptions{Confirm: func(p *plan.Plan) (bool, error) {
		shown, _ = plan.ChangesDigest(p)
		return true, nil
	}}, saved)
	if err != nil || res.Err() != nil {
		t.Fatalf("apply: %v / %v", err, res.Err())
	}
	if shown != want {
		t.Errorf("confirmed digest %s, the file's %s", shown, want)
	}
	if diff := cmp.Diff([]string{"update Vm web"}, names(res.Succeeded)); diff != "" {
		t.Errorf("applied (-want +got):\n%s", diff)
	}
}

// TestSavedPlanRefusedWhenTheCloudChanged: what the cloud holds changed
// since the plan (by hand, in the console): the saved plan no longer says
// what its apply would do, and is refused, as Terraform users expect a
// saved plan against changed state to be.
func TestSavedPlanRefusedWhenTheCloudChanged(t *testing.T) {
	w := newWorld(t)
	e := w.engine()
	mustApply(t, e, parse(t, stack))
	saved := roundTrip(t, mustPlan(t, e, parse(t, variant("size: small", "size: large"))))
	editSimObject(t, w, "SecurityGroup", func(props map[string]any) {
		props["ingress"].([]any)[0].(map[string]any)["port"] = 22
	})
	state, store := w.stateBytes(), w.store()
	_, err := e.Apply(t.Context(), nil, engine.ApplyOptions{AutoApprove: true}, saved)
	if !engine.IsMismatch(err) || !strings.Contains(err.Error(), `the file says no-op "sg", planning again says update`) {
		t.Fatalf("err = %v, want a mismatch naming sg", err)
	}
	if !bytes.Equal(state, w.stateBytes()) {
		t.Error("the refused plan changed the state")
	}
	if diff := cmp.Diff(store, w.store()); diff != "" {
		t.Errorf("the refused plan changed the cloud:\n%s", diff)
	}
}

// TestSavedPlanIsForItsOwnState: a plan made against one state directory
// is refused against another (a first plan would create everything again
// there), and a first plan is applied with the prefix it showed.
func TestSavedPlanIsForItsOwnState(t *testing.T) {
	w := newWorld(t)
	first := roundTrip(t, mustPlan(t, w.engine(), parse(t, stack)))
	other := filepath.Join(t.TempDir(), "elsewhere")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := sim.New(sim.Options{Dir: w.simDir})
	if err != nil {
		t.Fatal(err)
	}
	elsewhere := engine.New(p, local.New(other, "", local.Options{LockTimeout: 2 * time.Second}), engine.Options{DeployPrefix: "othr"})
	_, err = elsewhere.Apply(t.Context(), nil, engine.ApplyOptions{AutoApprove: true}, first)
	if !engine.IsStale(err) || !strings.Contains(err.Error(), "it was planned against the state at local "+w.stateDir) ||
		!strings.Contains(err.Error(), "this apply opens local "+other) {
		t.Fatalf("err = %v, want the two states named", err)
	}
	if files, _ := os.ReadDir(other); len(files) != 0 || len(w.cloud()) != 0 {
		t.Fatalf("the refused plan wrote %v and created %v", files, w.cloud())
	}
	// Applied where it was planned, with the engine's own prefix changed,
	// the first plan still names what it creates with the prefix it showed.
	res, err := w.engine(func(o *engine.Options) { o.DeployPrefix = "zzzz" }).Apply(t.Context(), nil, engine.ApplyOptions{AutoApprove: true}, first)
	if err != nil || res.Err() != nil {
		t.Fatalf("apply first plan: %v / %v", err, res.Err())
	}
	if got := w.state().Metadata.Prefix; got != first.Prefix {
		t.Errorf("state prefix %q, the plan showed %q", got, first.Prefix)
	}
}

// TestDestroyAllNeedsTheWord: a configuration with no resources plans to
// destroy everything in state; that plan, and an apply of it (planned or
// saved), is refused unless asked for, changing nothing; asked for, it
// destroys everything. Destroy itself needs no such word.
func TestDestroyAllNeedsTheWord(t *testing.T) {
	ctx := t.Context()
	empty := parse(t, "provider: sim\nresources: {}\n")
	w := newWorld(t)
	e := w.engine()
	mustApply(t, e, parse(t, stack))
	state, store := w.stateBytes(), w.store()
	unchanged := func(what string) {
		t.Helper()
		if !bytes.Equal(state, w.stateBytes()) {
			t.Errorf("%s changed the state", what)
		}
		if diff := cmp.Diff(store, w.store()); diff != "" {
			t.Errorf("%s changed the cloud:\n%s", what, diff)
		}
	}
	var da *engine.DestroyAllError
	if _, err := e.Plan(ctx, empty); !errors.As(err, &da) || da.Resources != 5 || !strings.Contains(err.Error(), "destroys all 5 resources in state because the configuration has none") {
		t.Fatalf("plan of an empty config: %v", err)
	}
	if _, err := e.Apply(ctx, empty, engine.ApplyOptions{AutoApprove: true}, nil); !engine.IsDestroyAll(err) {
		t.Fatalf("apply of an empty config: %v", err)
	}
	unchanged("the refused apply")
	p, err := e.PlanWith(ctx, empty, engine.PlanOptions{AllowDestroyAll: true})
	if err != nil || !p.DestroysAll() || p.Counters.Destroy != 5 {
		t.Fatalf("allowed plan: %v, %+v", err, p.Counters)
	}
	if _, err := e.Apply(ctx, nil, engine.ApplyOptions{AutoApprove: true}, roundTrip(t, p)); !engine.IsDestroyAll(err) {
		t.Fatalf("apply of a saved destroy-all plan without the word: %v", err)
	}
	unchanged("the refused saved plan")
	res, err := e.Apply(ctx, nil, engine.ApplyOptions{AutoApprove: true, AllowDestroyAll: true}, roundTrip(t, p))
	if err != nil || res.Err() != nil || len(res.Succeeded) != 5 || len(w.cloud()) != 0 {
		t.Fatalf("allowed apply: %v / %v, cloud %v", err, res.Err(), w.cloud())
	}
	// Nothing left to destroy: an empty configuration plans nothing.
	if p := mustPlan(t, e, empty); p.HasChanges() {
		t.Errorf("after destroying everything: %v", actions(p))
	}
	mustApply(t, e, parse(t, stack))
	if res, err := e.Destroy(ctx, engine.ApplyOptions{AutoApprove: true}); err != nil || len(res.Succeeded) != 5 {
		t.Fatalf("destroy: %v", err)
	}
}
