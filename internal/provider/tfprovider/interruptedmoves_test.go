package tfprovider_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/plan"
)

// renamedB is interruptedCfg with b renamed c in the configuration (its
// object keeps its cloud name), and the moved entry saying so.
const renamedB = `
providers:
  TP: { source: kyku/TP, config: { dir: CLOUD } }
resources:
  a:
    type: TP_item
    properties: { name: a, value: v1 }
  c:
    type: TP_item
    properties: { name: b, value: v1 }
  key:
    type: SshKey
    properties: { publicKey: "ssh-ed25519 AAAA" }
moved:
  - { from: b, to: c }
`

// TestMoveOfAnInterruptedCreate: a moved entry whose from is only an
// interrupted create's intent is refused, naming the way (the new name
// would otherwise be created again: a second object); kyku state mv
// carries the intent, a plan then refuses to create the new name, and
// importing the object there leaves one object of each.
func TestMoveOfAnInterruptedCreate(t *testing.T) {
	for _, tp := range testProviders {
		t.Run(tp.Type, func(t *testing.T) {
			w := newWorld(t, tp)
			interrupt(t, w)
			cfg := w.parse(renamedB)
			const want = "moved b → c: an apply was interrupted while creating b and the object it may have made is in no state, so the move would leave it behind: " +
				"carry its intent with kyku state mv b c, then import it there or drop the intent (kyku apply --forget-interrupted c)"
			_, err := w.engine(cfg).Plan(t.Context(), cfg)
			if err == nil || !strings.HasSuffix(err.Error(), want) {
				t.Fatalf("plan: %v, want …%s", err, want)
			}
			if _, err := w.engine(cfg).Apply(t.Context(), cfg, engine.ApplyOptions{AutoApprove: true}, nil); err == nil || !strings.HasSuffix(err.Error(), want) {
				t.Fatalf("apply: %v, want …%s", err, want)
			}
			if diff := cmp.Diff([]string{"a", "b"}, w.items()); diff != "" {
				t.Fatalf("cloud after the refused apply (-want +got):\n%s", diff)
			}

			if _, err := w.engine(cfg).StateMove(t.Context(), "b", "c"); err != nil {
				t.Fatalf("state mv b c: %v", err)
			}
			if diff := cmp.Diff(map[string]string{"c": tp.Type + "_item"}, w.state().Interrupted); diff != "" {
				t.Fatalf("intents after state mv (-want +got):\n%s", diff)
			}
			var ie *engine.InterruptedError
			if _, err := w.engine(cfg).Plan(t.Context(), cfg); !errors.As(err, &ie) || err.Error() != refusal("c") {
				t.Fatalf("plan after state mv: %v, want\n%s", err, refusal("c"))
			}
			if _, err := w.engine(cfg).Import(t.Context(), cfg, "c", w.idOf("b")); err != nil {
				t.Fatal(err)
			}
			w.apply(cfg)
			if diff := cmp.Diff([]string{"a", "b"}, w.items()); diff != "" {
				t.Errorf("cloud (-want +got):\n%s", diff)
			}
			if st := w.state(); len(st.Interrupted) != 0 || st.Resources["c"] == nil || st.Resources["b"] != nil {
				t.Errorf("state %v, interrupted %v", st.Names(), st.Interrupted)
			}
		})
	}
}

// cbdHead is one item, a, its replacement made before its destroy.
const cbdHead = "providers:\n  TP: { source: kyku/TP, config: { dir: CLOUD } }\nresources:\n  a:\n    type: TP_item\n    createBeforeDestroy: true\n"

// interruptReplace applies a (named a), then its replacement (named a2:
// the name forces a replace, made before the destroy) with the create
// of a2 answered by no one: a2 exists, in no state; a, the object
// replaced, stays at the address, and the intent is open there.
func interruptReplace(t *testing.T, w *world) (first string) {
	t.Helper()
	w.apply(w.parse(cbdHead + "    properties: { name: a, value: v1 }\n"))
	first = w.state().Resources["a"].ProviderID
	cfg := w.parse(cbdHead + "    properties: { name: a2, value: v1 }\n")
	res, err := w.wrapped(cfg, &creates{lost: map[string]bool{"a": true}}).Apply(t.Context(), cfg, engine.ApplyOptions{AutoApprove: true}, nil)
	if err != nil || len(res.Failed) != 1 {
		t.Fatalf("apply of the replace: %v, failed %+v", err, res)
	}
	st := w.state()
	if diff := cmp.Diff(map[string]string{"a": tp(w) + "_item"}, st.Interrupted); diff != "" {
		t.Fatalf("intents (-want +got):\n%s", diff)
	}
	if st.Resources["a"] == nil || st.Resources["a"].ProviderID != first {
		t.Fatalf("state %v: want a the object replaced", st.Names())
	}
	if diff := cmp.Diff([]string{"a", "a2"}, w.items()); diff != "" {
		t.Fatalf("cloud (-want +got):\n%s", diff)
	}
	return first
}

// replacingRefusal is a plan's refusal to replace name again.
func replacingRefusal(name string) string {
	return name + ": an apply was interrupted while creating its replacement (create before destroy) and the object it may have made is in no state: " +
		"import it (kyku import " + name + " ID: the object in state now is deposed, and the next apply destroys it) or, if it does not exist, drop the intent with kyku apply --forget-interrupted " + name
}

// TestImportInterruptedReplace: a create-before-destroy replace whose
// create was interrupted is refused by the next plan, naming the way;
// kyku import of the object it made deposes the one replaced (the old ID
// itself is refused), and the next apply destroys that: one object left,
// the new one, and no change planned after.
func TestImportInterruptedReplace(t *testing.T) {
	for _, tp := range testProviders {
		t.Run(tp.Type, func(t *testing.T) {
			w := newWorld(t, tp)
			first := interruptReplace(t, w)
			cfg := w.parse(cbdHead + "    properties: { name: a2, value: v1 }\n")
			var ie *engine.InterruptedError
			if _, err := w.engine(cfg).Plan(t.Context(), cfg); !errors.As(err, &ie) || err.Error() != replacingRefusal("a") {
				t.Fatalf("plan: %v, want\n%s", err, replacingRefusal("a"))
			}
			if _, err := w.engine(cfg).Import(t.Context(), cfg, "a", first); err == nil || !strings.Contains(err.Error(), "state manages "+tp.Type+"_item "+first+` already as "a"`) {
				t.Fatalf("import of the object replaced: %v", err)
			}
			newID := w.idOf("a2")
			if _, err := w.engine(cfg).Import(t.Context(), cfg, "a", newID); err != nil {
				t.Fatalf("import a %s: %v", newID, err)
			}
			st := w.state()
			if cur, old := st.Resources["a"], st.Resources[plan.DeposedName("a")]; cur == nil || cur.ProviderID != newID || old == nil || old.ProviderID != first || len(st.Interrupted) != 0 {
				t.Fatalf("after the import: state %v, interrupted %v", st.Names(), st.Interrupted)
			}
			w.apply(cfg)
			if diff := cmp.Diff([]string{"a2"}, w.items()); diff != "" {
				t.Errorf("cloud after the apply (-want +got):\n%s", diff)
			}
			if p := w.plan(cfg); p.HasChanges() {
				t.Errorf("plan after: %+v", p.Changes)
			}
		})
	}
}

// TestMovedReplaceCarriesIntent: the object an interrupted replace left
// at its address moves (a moved entry, or kyku state mv) with the intent:
// the new name's replace is refused as the old one's was, not made again.
func TestMovedReplaceCarriesIntent(t *testing.T) {
	w := newWorld(t, tplugin())
	interruptReplace(t, w)
	moved := strings.Replace(cbdHead, "  a:\n", "  b:\n", 1) + "    properties: { name: a2, value: v1 }\nmoved:\n  - { from: a, to: b }\n"
	cfg := w.parse(moved)
	var ie *engine.InterruptedError
	if _, err := w.engine(cfg).Plan(t.Context(), cfg); !errors.As(err, &ie) || err.Error() != replacingRefusal("b") {
		t.Fatalf("plan with the moved entry: %v, want\n%s", err, replacingRefusal("b"))
	}
	if _, err := w.engine(cfg).StateMove(t.Context(), "a", "b"); err != nil {
		t.Fatal(err)
	}
	if st := w.state(); st.Resources["b"] == nil || st.Interrupted["b"] == "" || len(st.Interrupted) != 1 {
		t.Fatalf("after state mv: %v, interrupted %v", st.Names(), st.Interrupted)
	}
	if diff := cmp.Diff([]string{"a", "a2"}, w.items()); diff != "" {
		t.Errorf("cloud (-want +got):\n%s", diff)
	}
}
