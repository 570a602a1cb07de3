package tfprovider_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/local"
	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// boxless is the world's state backend keeping no answers beside it, as
// a remote state's does not.
type boxless struct{ *local.Backend }

func (boxless) AnswerBox() statemgr.AnswerBox { return nil }

// stateBackend is the backend of the world's state: local, or boxless
// with remoteBox set.
func (w *world) stateBackend() statemgr.Backend {
	if w.remoteBox != "" {
		return boxless{w.backend()}
	}
	return w.backend()
}

// answers is the box of answers the world's engines get for a remote
// state: remoteBox, or none.
func (w *world) answers() statemgr.AnswerBox {
	if w.remoteBox == "" {
		return nil
	}
	return local.AnswerDir(w.remoteBox)
}

// remoteAnswer is the kept answer of address in the world's remote box.
func (w *world) remoteAnswer(address string) (state.Answer, bool) {
	w.t.Helper()
	name := state.AnswerName(address)
	kept, err := local.AnswerDir(w.remoteBox).Answers(w.t.Context())
	if err != nil {
		w.t.Fatal(err)
	}
	data, ok := kept[name]
	if !ok {
		return state.Answer{}, false
	}
	a, err := state.DecodeAnswer(name, data)
	if err != nil {
		w.t.Fatal(err)
	}
	return a, true
}

// keepRemote stores a in the world's remote box under name.
func (w *world) keepRemote(name string, a state.Answer) {
	w.t.Helper()
	data, err := state.EncodeAnswer(a)
	if err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.remoteBox, name), data, 0o600); err != nil {
		w.t.Fatal(err)
	}
}

// unkeptRefusalOfB refuses b's create again where this machine's box
// holds nothing of it: the interrupted apply ran elsewhere.
const unkeptRefusalOfB = "b: an apply was interrupted while creating it, on another machine or without a journal keeper (no answer of it is kept on this one), and the object it may have made is in no state: " +
	"import it (kyku import b ID, or an import block) or, if it does not exist, drop the intent with kyku apply --forget-interrupted b"

// TestKeptAnswerOfARemoteState: a state whose backend keeps no answers
// beside it (a remote one) has them kept in this machine's box for it
// (engine.Options.Answers). b's create, answered to the keeper and lost
// to Kyku, is folded by the next apply as beside a local state. The box
// is trusted no more than the local one: an answer planted for an
// address with no open intent is ignored, and removed; one naming
// another type than b's intent is refused, and kept. An apply on another
// machine (the box holds nothing of b) is refused, saying so.
func TestKeptAnswerOfARemoteState(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		tamper  func(w *world, b state.Answer)
		refusal string // "": b folded from its answer
	}{
		{name: "answered"},
		{name: "planted for an address without intent", refusal: unkeptRefusalOfB, tamper: func(w *world, b state.Answer) {
			os.Remove(filepath.Join(w.remoteBox, state.AnswerName("b")))
			b.Address = "a"
			w.keepRemote(state.AnswerName("a"), b)
		}},
		{name: "another type", refusal: refusalOfB, tamper: func(w *world, b state.Answer) {
			b.Type = w.tp.Type + "_latent"
			w.keepRemote(state.AnswerName("b"), b)
		}},
		{name: "another machine", refusal: unkeptRefusalOfB, tamper: func(w *world, b state.Answer) {
			os.Remove(filepath.Join(w.remoteBox, state.AnswerName("b")))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t, tfplugintest.Framework)
			w.tune, w.remoteBox = keeper, filepath.Join(t.TempDir(), "answers")
			cfg := interrupt(t, w)
			b, ok := w.remoteAnswer("b")
			if !ok || !b.Asked || b.Response == nil {
				t.Fatalf("b's kept answer in this machine's box: %v, %+v", ok, b)
			}
			if _, err := os.Stat(w.answersDir()); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("answers kept beside the remote state: %v", err)
			}
			idA := w.idOf("a")
			if c.tamper != nil {
				c.tamper(w, b)
			}
			_, err := w.engine(cfg).Apply(t.Context(), cfg, engine.ApplyOptions{AutoApprove: true}, nil)
			st := w.state()
			if c.refusal != "" {
				var ie *engine.InterruptedError
				if !errors.As(err, &ie) || err.Error() != c.refusal {
					t.Fatalf("apply: %v, want\n%s", err, c.refusal)
				}
				if st.Resources["a"].ProviderID != idA || st.Resources["b"] != nil || st.Interrupted["b"] == "" {
					t.Errorf("after the refused apply: a %s (want %s), b %+v, interrupted %v", st.Resources["a"].ProviderID, idA, st.Resources["b"], st.Interrupted)
				}
				if _, left := w.remoteAnswer("a"); left {
					t.Error("the answer planted for a, which has no open intent, was not removed")
				}
				if got, kept := w.remoteAnswer("b"); c.refusal == refusalOfB && (!kept || got.Type == b.Type) {
					t.Errorf("b's answer of another type: kept %v, %+v", kept, got)
				}
			} else {
				if err != nil {
					t.Fatalf("apply: %v", err)
				}
				if len(st.Interrupted) != 0 || st.Resources["b"] == nil || st.Resources["b"].ProviderID != w.idOf("b") {
					t.Errorf("after the apply: interrupted %v, b %+v", st.Interrupted, st.Resources["b"])
				}
				if ents, _ := os.ReadDir(w.remoteBox); len(ents) != 0 {
					t.Errorf("%d kept answers left after the apply", len(ents))
				}
			}
			if diff := cmp.Diff([]string{"a", "b"}, w.items()); diff != "" {
				t.Errorf("cloud (-want +got):\n%s", diff)
			}
		})
	}
}
