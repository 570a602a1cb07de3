package tfprovider_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/tfprovider"
	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// TestKeptAnswerOfAReplaceFolded: a create-before-destroy replace whose
// create reached the provider through its keeper, the answer kept and
// lost to Kyku: the next apply records the kept answer's object at the
// address, the object it was replacing deposed (as kyku import does),
// and destroys that one: one object left, the new one, and no change
// planned after.
func TestKeptAnswerOfAReplaceFolded(t *testing.T) {
	w := newWorld(t, tfplugintest.Framework)
	w.tune = keeper
	first := interruptReplace(t, w)
	if a := w.answer("a"); a.Response == nil {
		t.Fatal("the replacement's answer was not kept")
	}
	newID := w.idOf("a2")
	cfg := w.parse(cbdHead + "    properties: { name: a2, value: v1 }\n")
	if _, err := w.engine(cfg).Plan(t.Context(), cfg); err != nil {
		t.Fatalf("plan: %v", err)
	}
	w.apply(cfg)
	st := w.state()
	if cur := st.Resources["a"]; cur == nil || cur.ProviderID != newID || len(st.Interrupted) != 0 || len(st.Resources) != 1 {
		t.Fatalf("after the apply: state %v, interrupted %v (want a the new %s, the replaced %s gone)", st.Names(), st.Interrupted, newID, first)
	}
	if diff := cmp.Diff([]string{"a2"}, w.items()); diff != "" {
		t.Errorf("cloud after the apply (-want +got):\n%s", diff)
	}
	if p := w.plan(cfg); p.HasChanges() {
		t.Errorf("plan after: %+v", p.Changes)
	}
}

// answersFailing is the world's router with Answered failing with err.
type answersFailing struct {
	*tfprovider.Router
	err error
}

func (a answersFailing) Answered(context.Context, string, []byte) (provider.Object, error) {
	return provider.Object{}, a.err
}

// TestFoldSaysProviderFailure: folding b's kept answer needs its
// provider; one that cannot start (or say its schema) fails the plan and
// the apply with that failure, named, not with b's refusal as if the
// answer were unusable; an answer that is unusable leaves b refused.
func TestFoldSaysProviderFailure(t *testing.T) {
	w := newWorld(t, tfplugintest.Framework)
	w.tune = keeper
	cfg := interrupt(t, w)
	startErr := errors.New("provider fwtest: start: fork/exec /nowhere: no such file or directory")
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"the provider does not start", startErr, "fold the kept answer of b: " + startErr.Error()},
		{"the answer is unusable", provider.UnusableAnswer(errors.New("invalid answer")), refusalOfB},
	} {
		t.Run(c.name, func(t *testing.T) {
			w.engine(cfg) // starts the router
			e := engine.New(answersFailing{w.router, c.err}, w.stateBackend(), engine.Options{DeployPrefix: "t", Answers: w.answers()})
			if _, err := e.Plan(t.Context(), cfg); err == nil || err.Error() != c.want {
				t.Errorf("plan: %v, want %s", err, c.want)
			}
			if _, err := e.Apply(t.Context(), cfg, engine.ApplyOptions{AutoApprove: true}, nil); err == nil || err.Error() != c.want {
				t.Errorf("apply: %v, want %s", err, c.want)
			}
			if st := w.state(); st.Interrupted["b"] == "" || st.Resources["b"] != nil {
				t.Errorf("state: b %+v, interrupted %v", st.Resources["b"], st.Interrupted)
			}
		})
	}
}

// TestFoldOfAnAddressNoLongerConfigured: b's kept answer, b then removed
// from the configuration and its provider unable to read the answer (a
// newer provider renamed the type): the fold leaves b's intent open,
// refused with its way out, and fails no plan over an answer nothing
// asks for (every plan and apply failed on it, --forget-interrupted
// included, until the file was deleted by hand).
func TestFoldOfAnAddressNoLongerConfigured(t *testing.T) {
	w := newWorld(t, tfplugintest.Framework)
	w.tune = keeper
	interrupt(t, w)
	without := strings.Replace(interruptedCfg, "  b:\n    type: TP_item\n    properties: { name: b, value: v1 }\n", "", 1)
	if without == interruptedCfg {
		t.Fatal("b is still in the configuration")
	}
	gone := w.parse(without)
	w.engine(gone) // starts the router
	unknown := errors.New(`provider fwtest: has no resource type "fwtest_item"`)
	e := engine.New(answersFailing{w.router, unknown}, w.stateBackend(), engine.Options{DeployPrefix: "t", Answers: w.answers()})
	if _, err := e.Plan(t.Context(), gone); err != nil && strings.Contains(err.Error(), "fold the kept answer") {
		t.Errorf("plan failed on b's answer: %v", err)
	}
	if st := w.state(); st.Interrupted["b"] == "" {
		t.Errorf("b's intent was closed: %v", st.Interrupted)
	}
}
