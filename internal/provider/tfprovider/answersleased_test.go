package tfprovider_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// TestKeptAnswerUnderLeases: b's create answered to the keeper and lost
// to Kyku, its answer kept in this machine's box for a remote state; an
// apply that leases folds no answer, so its refusal says so and names
// leases: false, not an import of an object the answer already names,
// and --forget-interrupted b is refused naming leases: false too. An
// apply without leases then folds b.
func TestKeptAnswerUnderLeases(t *testing.T) {
	w := newWorld(t, tfplugintest.Framework)
	w.tune, w.remoteBox = keeper, filepath.Join(t.TempDir(), "answers")
	cfg := interrupt(t, w)
	w.leased = true
	want := "b: an apply was interrupted while creating it; the provider's answer is kept on this machine, but an apply that leases folds none: " +
		"run kyku apply once with leases: false in the backend block (the whole state's lock), which records the object, then lease again"
	var ie *engine.InterruptedError
	if _, err := w.engine(cfg).Plan(t.Context(), cfg); !errors.As(err, &ie) || err.Error() != want {
		t.Fatalf("leased plan: %v, want\n%s", err, want)
	}
	if _, err := w.engine(cfg).Apply(t.Context(), cfg, engine.ApplyOptions{AutoApprove: true}, nil); !errors.As(err, &ie) || err.Error() != want {
		t.Fatalf("leased apply: %v, want\n%s", err, want)
	}
	_, err := w.engine(cfg).Apply(t.Context(), cfg, engine.ApplyOptions{AutoApprove: true, ForgetInterrupted: []string{"b"}}, nil)
	if err == nil || !strings.Contains(err.Error(), "with leases: false in the backend block") {
		t.Fatalf("leased apply --forget-interrupted b: %v, want a refusal naming leases: false", err)
	}
	w.leased = false
	if _, err := w.engine(cfg).Apply(t.Context(), cfg, engine.ApplyOptions{AutoApprove: true}, nil); err != nil {
		t.Fatalf("apply without leases: %v", err)
	}
	if st := w.state(); len(st.Interrupted) != 0 || st.Resources["b"] == nil || st.Resources["b"].ProviderID != w.idOf("b") {
		t.Errorf("after the apply without leases: b %+v, interrupted %v", st.Resources["b"], st.Interrupted)
	}
}
