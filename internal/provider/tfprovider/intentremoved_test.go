package tfprovider_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// noneLeft is interruptedCfg with a and b removed: an apply of it
// destroys a.
const noneLeft = `
providers:
  TP: { source: kyku/TP, config: { dir: CLOUD } }
resources:
  key:
    type: SshKey
    properties: { publicKey: "ssh-ed25519 AAAA" }
`

// TestApplyDestroyingRemovedRefusesInterrupted: b's create was
// interrupted (its intent open); a configuration without a nor b would
// have the apply destroy a and report the removed resources gone, leaving
// the object b's create may have made: refused, as kyku destroy is,
// naming b and the ways out; nothing destroyed. --forget-interrupted b
// lets the apply go on.
func TestApplyDestroyingRemovedRefusesInterrupted(t *testing.T) {
	w := newWorld(t, tfplugintest.Framework)
	interrupt(t, w)
	want := "b: an apply was interrupted while creating it and the object it may have made is in no state; it is no longer in the configuration, so this apply, which destroys what was removed, would leave that object: " +
		"put it back and import it (kyku import b ID), then remove it, or, if it does not exist, drop the intent with kyku apply --forget-interrupted b"
	cfg := w.parse(noneLeft)
	var ie *engine.InterruptedError
	if _, err := w.engine(cfg).Plan(t.Context(), cfg); !errors.As(err, &ie) || err.Error() != want {
		t.Fatalf("plan: %v, want\n%s", err, want)
	}
	if _, err := w.engine(cfg).Apply(t.Context(), cfg, engine.ApplyOptions{AutoApprove: true}, nil); !errors.As(err, &ie) || err.Error() != want {
		t.Fatalf("apply: %v, want\n%s", err, want)
	}
	if diff := cmp.Diff([]string{"a", "b"}, w.items()); diff != "" {
		t.Errorf("cloud after the refused apply (-want +got):\n%s", diff)
	}
	if st := w.state(); st.Resources["a"] == nil || st.Interrupted["b"] == "" {
		t.Errorf("state after the refused apply: %v, interrupted %v", st.Names(), st.Interrupted)
	}
	if _, err := w.engine(cfg).Apply(t.Context(), cfg, engine.ApplyOptions{AutoApprove: true, ForgetInterrupted: []string{"b"}}, nil); err != nil {
		t.Fatalf("apply --forget-interrupted b: %v", err)
	}
	if st := w.state(); st.Resources["a"] != nil || len(st.Interrupted) != 0 {
		t.Errorf("state after the apply: %v, interrupted %v", st.Names(), st.Interrupted)
	}
}

// TestTargetedApplyJudgesOnlyTargetedIntents: with b's create interrupted
// and a and b removed, apply --target a destroys a alone and leaves b's
// intent (OpenTofu scopes everything to the targets: b is neither
// destroyed nor reported gone), where it was refused for b; a target
// naming b as well (an open intent is a target's address) is refused as
// the untargeted apply is.
func TestTargetedApplyJudgesOnlyTargetedIntents(t *testing.T) {
	w := newWorld(t, tfplugintest.Framework)
	interrupt(t, w)
	cfg := w.parse(noneLeft)
	var ie *engine.InterruptedError
	if _, err := w.engine(cfg).Apply(t.Context(), cfg, engine.ApplyOptions{AutoApprove: true, Targets: []string{"a", "b"}}, nil); !errors.As(err, &ie) || !ie.Removed {
		t.Fatalf("apply --target a --target b: %v, want b's intent refused", err)
	}
	if diff := cmp.Diff([]string{"a", "b"}, w.items()); diff != "" {
		t.Errorf("cloud after the refused apply (-want +got):\n%s", diff)
	}
	if _, err := w.engine(cfg).Apply(t.Context(), cfg, engine.ApplyOptions{AutoApprove: true, Targets: []string{"a"}}, nil); err != nil {
		t.Fatalf("apply --target a: %v", err)
	}
	if diff := cmp.Diff([]string{"b"}, w.items()); diff != "" {
		t.Errorf("cloud after apply --target a (-want +got):\n%s", diff)
	}
	if st := w.state(); st.Resources["a"] != nil || st.Interrupted["b"] == "" {
		t.Errorf("state after apply --target a: %v, interrupted %v", st.Names(), st.Interrupted)
	}
}
