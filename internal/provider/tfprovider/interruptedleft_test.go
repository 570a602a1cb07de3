package tfprovider_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/render"
)

// What an interrupted create leaves (its open intent) must survive every
// way out that is not the user's confirmed word: a destroy, a move, a
// declined or refused apply.

// destroyRefusal is a destroy's refusal while name's intent is open.
func destroyRefusal(name string) string {
	return name + ": an apply was interrupted while creating it and the object it may have made is in no state, so destroy would leave it: " +
		"import it (kyku import " + name + " ID), then destroy, or, if it does not exist, drop the intent with kyku destroy --forget-interrupted " + name
}

// TestDestroyRefusesInterrupted: a destroy (and a plan of one) refuses
// while an intent is open, naming it and the ways out, changing nothing;
// imported, the object is destroyed with the rest; forgotten (deleted by
// hand), the destroy goes on and drops the intent.
func TestDestroyRefusesInterrupted(t *testing.T) {
	for _, tp := range testProviders {
		for _, way := range []string{"import", "forget"} {
			t.Run(tp.Type+"/"+way, func(t *testing.T) {
				w := newWorld(t, tp)
				cfg := interrupt(t, w)
				before := w.state()
				var ie *engine.InterruptedError
				if _, err := w.engine(cfg).PlanDestroy(t.Context()); !errors.As(err, &ie) || err.Error() != destroyRefusal("b") {
					t.Fatalf("plan --destroy: %v, want\n%s", err, destroyRefusal("b"))
				}
				_, err := w.engine(cfg).Destroy(t.Context(), engine.ApplyOptions{AutoApprove: true})
				if !errors.As(err, &ie) || err.Error() != destroyRefusal("b") {
					t.Fatalf("destroy: %v, want\n%s", err, destroyRefusal("b"))
				}
				if after := w.state(); after.Metadata.Serial != before.Metadata.Serial || after.Resources["a"] == nil {
					t.Errorf("the refused destroy changed the state: serial %d (was %d), %v", after.Metadata.Serial, before.Metadata.Serial, after.Names())
				}
				if diff := cmp.Diff([]string{"a", "b"}, w.items()); diff != "" {
					t.Fatalf("the refused destroy changed the cloud (-want +got):\n%s", diff)
				}
				opts := engine.ApplyOptions{AutoApprove: true}
				if way == "import" {
					if _, err := w.engine(cfg).Import(t.Context(), cfg, "b", w.idOf("b")); err != nil {
						t.Fatal(err)
					}
				} else {
					if err := os.Remove(filepath.Join(w.cloud, w.idOf("b")+".json")); err != nil {
						t.Fatal(err)
					}
					opts.ForgetInterrupted = []string{"b"}
				}
				res, err := w.engine(cfg).Destroy(t.Context(), opts)
				if err == nil {
					err = res.Err()
				}
				if err != nil {
					t.Fatalf("destroy after %s: %v", way, err)
				}
				if got := w.items(); len(got) != 0 {
					t.Errorf("cloud after the destroy: %v, want nothing", got)
				}
				if st := w.state(); len(st.Resources) != 0 || len(st.Interrupted) != 0 {
					t.Errorf("state after the destroy: %v, interrupted %v", st.Names(), st.Interrupted)
				}
			})
		}
	}
}

// TestForgetInterruptedTakesEffectWithTheApply: --forget-interrupted is
// part of the plan (shown in its text) and of what the apply does: a
// plan declined, or one refused for another address, keeps the intent;
// confirmed, the intent is dropped and the address created once.
func TestForgetInterruptedTakesEffectWithTheApply(t *testing.T) {
	w := newWorld(t, tplugin())
	cfg := w.parse(interruptedCfg)
	// a and b are both created, neither answered: both intents stay open.
	res, err := w.wrapped(cfg, &creates{lost: map[string]bool{"a": true, "b": true}}).Apply(t.Context(), cfg, engine.ApplyOptions{AutoApprove: true}, nil)
	if err != nil || len(res.Failed) != 2 {
		t.Fatalf("apply: %v, failed %+v", err, res)
	}
	for _, name := range []string{"a", "b"} {
		if err := os.Remove(filepath.Join(w.cloud, w.idOf(name)+".json")); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]string{"a": "fwtest_item", "b": "fwtest_item"}

	// Refused for a: b's intent is kept.
	_, err = w.engine(cfg).Apply(t.Context(), cfg, engine.ApplyOptions{AutoApprove: true, ForgetInterrupted: []string{"b"}}, nil)
	if err == nil || err.Error() != refusal("a") {
		t.Fatalf("apply forgetting b only: %v, want\n%s", err, refusal("a"))
	}
	if diff := cmp.Diff(want, w.state().Interrupted); diff != "" {
		t.Fatalf("after a refused plan, intents (-want +got):\n%s", diff)
	}

	// Declined: the plan shows the forget; both intents are kept.
	var text bytes.Buffer
	decline := func(p *plan.Plan) (bool, error) { return false, render.PlanText(&text, p, render.TextOptions{}) }
	_, err = w.engine(cfg).Apply(t.Context(), cfg, engine.ApplyOptions{Confirm: decline, ForgetInterrupted: []string{"b", "a"}}, nil)
	if !errors.Is(err, engine.ErrNotConfirmed) {
		t.Fatalf("declined apply: %v", err)
	}
	const line = "Forgetting, as requested (--forget-interrupted): the interrupted create of a, b made no object; its intent is dropped from state."
	if !strings.Contains(text.String(), line+"\n") {
		t.Errorf("plan text lacks %q:\n%s", line, text.String())
	}
	if diff := cmp.Diff(want, w.state().Interrupted); diff != "" {
		t.Fatalf("after a declined apply, intents (-want +got):\n%s", diff)
	}

	// Confirmed: dropped, and each created once.
	var forgot []string
	accept := func(p *plan.Plan) (bool, error) { forgot = p.ForgetInterrupted; return true, nil }
	res, err = w.engine(cfg).Apply(t.Context(), cfg, engine.ApplyOptions{Confirm: accept, ForgetInterrupted: []string{"b", "a"}}, nil)
	if err == nil {
		err = res.Err()
	}
	if err != nil {
		t.Fatalf("confirmed apply: %v", err)
	}
	if diff := cmp.Diff([]string{"a", "b"}, forgot); diff != "" {
		t.Errorf("the plan's forgets (-want +got):\n%s", diff)
	}
	if st := w.state(); len(st.Interrupted) != 0 || st.Resources["a"] == nil || st.Resources["b"] == nil {
		t.Errorf("after the apply: interrupted %v, state %v", st.Interrupted, st.Names())
	}
	if diff := cmp.Diff([]string{"a", "b"}, w.items()); diff != "" {
		t.Errorf("cloud (-want +got):\n%s", diff)
	}
}

// TestForgetInterruptedAloneIsApplied: a plan whose only change is the
// forget (the address left the configuration) is confirmed and applied:
// the state drops the intent.
func TestForgetInterruptedAloneIsApplied(t *testing.T) {
	w := newWorld(t, tplugin())
	interrupt(t, w)
	cfg := w.parse(strings.Replace(interruptedCfg, "  b:\n    type: TP_item\n    properties: { name: b, value: v1 }\n", "", 1))
	before := w.state()
	asked := false
	res, err := w.engine(cfg).Apply(t.Context(), cfg, engine.ApplyOptions{
		Confirm:           func(*plan.Plan) (bool, error) { asked = true; return true, nil },
		ForgetInterrupted: []string{"b"},
	}, nil)
	if err == nil {
		err = res.Err()
	}
	if err != nil {
		t.Fatal(err)
	}
	if !asked {
		t.Error("the forget was not confirmed")
	}
	if st := w.state(); len(st.Interrupted) != 0 || st.Metadata.Serial != before.Metadata.Serial+1 {
		t.Errorf("after the apply: interrupted %v, serial %d (was %d)", st.Interrupted, st.Metadata.Serial, before.Metadata.Serial)
	}
}
