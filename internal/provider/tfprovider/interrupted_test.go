package tfprovider_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/tfprovider"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr/local"
	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// The engine journals a Terraform provider's create as an intent before
// the provider is asked (engine/intent.go): these tests drive it with the
// test providers, a crash after the provider made the object standing in
// as a create whose answer is lost.

const interruptedCfg = `
providers:
  TP: { source: kyku/TP, config: { dir: CLOUD } }
resources:
  a:
    type: TP_item
    properties: { name: a, value: v1 }
  b:
    type: TP_item
    properties: { name: b, value: v1 }
  key:
    type: SshKey
    properties: { publicKey: "ssh-ed25519 AAAA" }
`

// creates wraps a router: each Create first calls before, and lost names
// the resources whose create makes the object but answers as a provider
// gone mid-call does (no answer: the object's ID never reaches Kyku).
type creates struct {
	*tfprovider.Router
	before func(ctx context.Context, r provider.Resource)
	lost   map[string]bool
}

func (c *creates) Create(ctx context.Context, r provider.Resource) (provider.Object, error) {
	if c.before != nil {
		c.before(ctx, r)
	}
	obj, err := c.Router.Create(ctx, r)
	if err == nil && c.lost[r.Name] {
		return provider.Object{}, errors.New("provider TP: ApplyResourceChange: connection lost")
	}
	return obj, err
}

// wrapped opens an engine on cfg's providers, wrapped by c, with the
// world's state.
func (w *world) wrapped(cfg *config.Config, c *creates) *engine.Engine {
	w.t.Helper()
	w.engine(cfg) // starts the router
	c.Router = w.router
	return engine.New(c, w.stateBackend(), engine.Options{
		DeployPrefix: "t", RetryBase: time.Millisecond, DestroyBase: time.Millisecond, VerifyInterval: time.Millisecond,
		Answers: w.answers(),
	})
}

func (w *world) backend() *local.Backend {
	return local.New(filepath.Join(w.dir, ".kyku"), "", local.Options{})
}

// cloudItem is one object of the world's test cloud.
type cloudItem struct{ ID, Name string }

// cloudItems are the objects in the world's test cloud.
func (w *world) cloudItems() []cloudItem {
	w.t.Helper()
	files, err := filepath.Glob(filepath.Join(w.cloud, "*.json"))
	if err != nil {
		w.t.Fatal(err)
	}
	var out []cloudItem
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			w.t.Fatal(err)
		}
		var it cloudItem
		if err := json.Unmarshal(data, &it); err != nil {
			w.t.Fatal(err)
		}
		out = append(out, it)
	}
	return out
}

// items are the names of the objects in the world's test cloud, sorted
// (a name twice: two objects).
func (w *world) items() []string {
	var names []string
	for _, it := range w.cloudItems() {
		names = append(names, it.Name)
	}
	slices.Sort(names)
	return names
}

// idOf is the ID of the object named name in the world's test cloud.
func (w *world) idOf(name string) string {
	w.t.Helper()
	for _, it := range w.cloudItems() {
		if it.Name == name {
			return it.ID
		}
	}
	w.t.Fatalf("no object named %s in the cloud", name)
	return ""
}

// TestIntentJournaledBeforeCreate: when the provider is asked to create
// one of its objects, the journal already holds the intent (durable: it
// is read from the backend's files); a Kyku type's create, which finds an
// object of the same cloud name, has none. After the apply no intent is
// left open.
func TestIntentJournaledBeforeCreate(t *testing.T) {
	for _, tp := range testProviders {
		t.Run(tp.Type, func(t *testing.T) {
			w := newWorld(t, tp)
			cfg := w.parse(interruptedCfg)
			var mu sync.Mutex
			seen := map[string]bool{}
			e := w.wrapped(cfg, &creates{before: func(ctx context.Context, r provider.Resource) {
				es, err := w.backend().Entries(ctx)
				if err != nil {
					t.Error(err)
				}
				mu.Lock()
				defer mu.Unlock()
				seen[r.Name] = slices.ContainsFunc(es, func(e state.Entry) bool { return e.Op == state.OpIntent && e.Name == r.Name })
			}})
			res, err := e.Apply(t.Context(), cfg, engine.ApplyOptions{AutoApprove: true}, nil)
			if err == nil {
				err = res.Err()
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(map[string]bool{"a": true, "b": true, "key": false}, seen); diff != "" {
				t.Errorf("intent in the journal when the provider was asked to create (-want +got):\n%s", diff)
			}
			if st := w.state(); len(st.Interrupted) != 0 {
				t.Errorf("intents left open after a finished apply: %v", st.Interrupted)
			}
		})
	}
}

// interrupt applies interruptedCfg with b's create answered by no one:
// b's object exists, in no state, and its intent stays open.
func interrupt(t *testing.T, w *world) *config.Config {
	t.Helper()
	cfg := w.parse(interruptedCfg)
	res, err := w.wrapped(cfg, &creates{lost: map[string]bool{"b": true}}).Apply(t.Context(), cfg, engine.ApplyOptions{AutoApprove: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failed) != 1 || res.Failed[0].Name != "b" {
		t.Fatalf("apply: failed %+v, want b", res.Failed)
	}
	if diff := cmp.Diff(map[string]string{"b": tp(w) + "_item"}, w.state().Interrupted); diff != "" {
		t.Fatalf("interrupted in state (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"a", "b"}, w.items()); diff != "" {
		t.Fatalf("cloud (-want +got):\n%s", diff)
	}
	return cfg
}

func tp(w *world) string { return w.tp.Type }

// refusal is a plan's refusal to create name again.
func refusal(name string) string {
	return name + ": an apply was interrupted while creating it and the object it may have made is in no state: " +
		"import it (kyku import " + name + " ID, or an import block) or, if it does not exist, drop the intent with kyku apply --forget-interrupted " + name
}

var refusalOfB = refusal("b")

// TestInterruptedCreateRefused: a create whose answer was lost leaves its
// intent open; a plan refuses to create the address again, naming it and
// the way out, and so does an apply (nothing created, the state as it
// was). A replace of an address with an open intent is refused too.
func TestInterruptedCreateRefused(t *testing.T) {
	for _, tp := range testProviders {
		t.Run(tp.Type, func(t *testing.T) {
			w := newWorld(t, tp)
			cfg := interrupt(t, w)
			_, err := w.engine(cfg).Plan(t.Context(), cfg)
			var ie *engine.InterruptedError
			if !errors.As(err, &ie) || err.Error() != refusalOfB {
				t.Fatalf("plan: %v, want\n%s", err, refusalOfB)
			}
			before := w.state()
			_, err = w.engine(cfg).Apply(t.Context(), cfg, engine.ApplyOptions{AutoApprove: true}, nil)
			if !errors.As(err, &ie) || err.Error() != refusalOfB {
				t.Fatalf("apply: %v, want\n%s", err, refusalOfB)
			}
			if diff := cmp.Diff([]string{"a", "b"}, w.items()); diff != "" {
				t.Errorf("the refused apply changed the cloud (-want +got):\n%s", diff)
			}
			if after := w.state(); after.Metadata.Serial != before.Metadata.Serial {
				t.Errorf("the refused apply wrote the state (serial %d, was %d)", after.Metadata.Serial, before.Metadata.Serial)
			}
			// Other changes go on with -target: the refused address is not planned.
			changed := w.parse(strings.Replace(interruptedCfg, "name: a, value: v1", "name: a, value: v2", 1))
			res, err := w.engine(changed).Apply(t.Context(), changed, engine.ApplyOptions{AutoApprove: true, Targets: []string{"a"}}, nil)
			if err != nil || res.Err() != nil || len(res.Succeeded) != 1 {
				t.Fatalf("targeted apply of a: %v %+v", err, res)
			}
			if _, ok := w.state().Interrupted["b"]; !ok {
				t.Error("a targeted apply of another address dropped b's intent")
			}
		})
	}
}

// TestImportClosesInterrupted: importing the object the interrupted
// create made (kyku import, or an import entry in the configuration)
// closes its intent: the apply creates nothing, and the cloud holds one
// object of each.
func TestImportClosesInterrupted(t *testing.T) {
	for _, tp := range testProviders {
		for _, entry := range []bool{false, true} {
			name := tp.Type + "/kyku import"
			if entry {
				name = tp.Type + "/import entry"
			}
			t.Run(name, func(t *testing.T) {
				w := newWorld(t, tp)
				cfg := interrupt(t, w)
				if entry {
					cfg = w.parse(interruptedCfg + "import:\n  - { to: b, id: " + w.idOf("b") + " }\n")
				} else if _, err := w.engine(cfg).Import(t.Context(), cfg, "b", w.idOf("b")); err != nil {
					t.Fatal(err)
				}
				w.apply(cfg)
				if st := w.state(); len(st.Interrupted) != 0 || st.Resources["b"] == nil || st.Resources["b"].ProviderID != w.idOf("b") {
					t.Errorf("after the import: interrupted %v, b %+v", st.Interrupted, st.Resources["b"])
				}
				if diff := cmp.Diff([]string{"a", "b"}, w.items()); diff != "" {
					t.Errorf("cloud (-want +got):\n%s", diff)
				}
				if p := w.plan(cfg); p.HasChanges() {
					t.Errorf("plan after the import and apply: %+v", p.Changes)
				}
			})
		}
	}
}

// TestForgetInterrupted: the user says the interrupted create made no
// object (here it is deleted by hand): apply --forget-interrupted drops
// the intent and creates the address. It refuses an address without an
// intent, and a saved plan, changing nothing.
func TestForgetInterrupted(t *testing.T) {
	for _, tp := range testProviders {
		t.Run(tp.Type, func(t *testing.T) {
			w := newWorld(t, tp)
			cfg := interrupt(t, w)
			if err := os.Remove(filepath.Join(w.cloud, w.idOf("b")+".json")); err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				name  string
				names []string
				saved bool
				want  string
			}{
				{name: "no such intent", names: []string{"a"}, want: "--forget-interrupted a: no create of it was interrupted"},
				{name: "with a saved plan", names: []string{"b"}, saved: true, want: "--forget-interrupted is given to an apply that plans, not with a saved plan"},
			} {
				t.Run(c.name, func(t *testing.T) {
					var saved *plan.Plan
					if c.saved {
						saved = &plan.Plan{}
					}
					_, err := w.engine(cfg).Apply(t.Context(), cfg, engine.ApplyOptions{AutoApprove: true, ForgetInterrupted: c.names}, saved)
					if err == nil || !strings.HasPrefix(err.Error(), c.want) {
						t.Fatalf("apply: %v, want %q", err, c.want)
					}
					if _, ok := w.state().Interrupted["b"]; !ok {
						t.Error("the refused apply dropped b's intent")
					}
				})
			}
			res, err := w.engine(cfg).Apply(t.Context(), cfg, engine.ApplyOptions{AutoApprove: true, ForgetInterrupted: []string{"b"}}, nil)
			if err == nil {
				err = res.Err()
			}
			if err != nil {
				t.Fatalf("apply --forget-interrupted b: %v", err)
			}
			if st := w.state(); len(st.Interrupted) != 0 || st.Resources["b"] == nil {
				t.Errorf("after the apply: interrupted %v, b %+v", st.Interrupted, st.Resources["b"])
			}
			if diff := cmp.Diff([]string{"a", "b"}, w.items()); diff != "" {
				t.Errorf("cloud (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFinishedIntentRefusesNothing: folding a crashed run's journal, an
// intent whose outcome reached it refuses nothing (the object recorded;
// the provider answering with no object), one without an outcome refuses
// its address.
func TestFinishedIntentRefusesNothing(t *testing.T) {
	for _, c := range []struct {
		name    string
		outcome []state.Op // after a's delete and intent
		replace []string   // the plan's PlanOptions.Replace
		refused bool
		want    plan.Action
	}{
		{name: "recorded", outcome: []state.Op{state.OpPut}, replace: []string{"a"}, want: plan.Replace},
		{name: "no object", outcome: []state.Op{state.OpNoObject}, want: plan.Create},
		{name: "in flight", refused: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t, tplugin())
			cfg := w.parse(interruptedCfg)
			w.apply(cfg)
			st := w.state()
			b := w.backend()
			ctx := t.Context()
			ops := append([]state.Op{state.OpDelete, state.OpIntent}, c.outcome...)
			for i, op := range ops {
				e := state.Entry{Seq: int64(i + 1), BaseSerial: st.Metadata.Serial, Lineage: st.Metadata.Lineage, Op: op, Name: "a", Type: "fwtest_item"}
				if op == state.OpPut {
					e.Resource = st.Resources["a"]
				}
				if err := b.Append(ctx, e); err != nil {
					t.Fatal(err)
				}
			}
			p, err := w.engine(cfg).PlanWith(ctx, cfg, engine.PlanOptions{Replace: c.replace})
			if c.refused {
				if err == nil || err.Error() != refusal("a") {
					t.Fatalf("plan: %v, want\n%s", err, refusal("a"))
				}
				return
			}
			if err != nil {
				t.Fatalf("plan: %v", err)
			}
			if ch := change(p, "a"); ch == nil || ch.Action != c.want {
				t.Errorf("plan's change of a: %+v, want %s", ch, c.want)
			}
		})
	}
}

// TestRefusedCreateClosesIntent: a create the provider answers with an
// error and no object closes its intent: the next plan creates it again.
func TestRefusedCreateClosesIntent(t *testing.T) {
	w := newWorld(t, tplugin())
	refuse := w.parse(`
providers:
  TP: { source: kyku/TP, config: { dir: CLOUD } }
resources:
  e:
    type: TP_echo
    properties: { input: hello, refuse: true }
`)
	res, err := w.engine(refuse).Apply(t.Context(), refuse, engine.ApplyOptions{AutoApprove: true}, nil)
	if err != nil || len(res.Failed) != 1 || !strings.Contains(res.Failed[0].Err.Error(), "refuses input") {
		t.Fatalf("apply: %v %+v", err, res)
	}
	if st := w.state(); len(st.Interrupted) != 0 {
		t.Errorf("the refused create left its intent open: %v", st.Interrupted)
	}
	if p := w.plan(refuse); change(p, "e") == nil || change(p, "e").Action != plan.Create {
		t.Errorf("plan after the refused create: %+v", p.Changes)
	}
}

// tplugin is the framework's test provider (fwtest_echo is its own).
func tplugin() tfplugintest.Provider { return tfplugintest.Framework }
