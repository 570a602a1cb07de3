package tfprovider_test

import (
	"errors"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/provider/tfprovider"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr/local"
	"github.com/kyku/action/internal/tfplugin"
	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// TestMain lets the test binary be the journal keeper of the providers the
// tests start with keeper (as kyku-engine is, with tfplugin.KeeperArg).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == tfplugin.KeeperArg {
		signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
		os.Exit(serveKeeper(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// keeper has the world's providers launched by a journal keeper.
func keeper(pc *tfprovider.Config) { pc.Keeper = []string{os.Args[0], tfplugin.KeeperArg} }

// answersDir is where the world's backend keeps the keepers' answers.
func (w *world) answersDir() string { return filepath.Join(w.dir, ".kyku", "state.answers") }

// answer is the kept answer of address as the engine reads it, through
// the answer box (its note, or the keeper's log's record of it that went
// further); the test fails without one.
func (w *world) answer(address string) state.Answer {
	w.t.Helper()
	name := state.AnswerName(address)
	kept, err := local.AnswerDir(w.answersDir()).Answers(w.t.Context())
	if err != nil {
		w.t.Fatal(err)
	}
	data, ok := kept[name]
	if !ok {
		w.t.Fatalf("no kept answer of %s", address)
	}
	a, err := state.DecodeAnswer(name, data)
	if err != nil {
		w.t.Fatal(err)
	}
	return a
}

// keep stores data as the answer file name.
func (w *world) keep(name string, a state.Answer) {
	w.t.Helper()
	data, err := state.EncodeAnswer(a)
	if err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.answersDir(), name), data, 0o600); err != nil {
		w.t.Fatal(err)
	}
}

// TestKeptAnswerFolded: b's create reached the provider through its
// journal keeper, which kept the answer, but Kyku never had it (the
// apply killed): the next plan refuses nothing and creates nothing, and
// the next apply records b's object from the kept answer, closes the
// intent and removes the answer; the cloud holds one object of each. A
// finished apply leaves no answer behind. The kept answer is trusted for
// nothing the state's intent does not name: one naming another address,
// stored under another name, of another type, or not holding the answer
// yet (the keeper died too) leaves b's create refused. A create noted but
// never asked for (Kyku killed before the keeper had it) made nothing:
// the apply creates b, once.
func TestKeptAnswerFolded(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		tamper func(w *world, b state.Answer) // after the interrupted apply
		folded bool                           // b recorded from the answer
		create bool                           // b created by the next apply
	}{
		{name: "answered", folded: true},
		{name: "never asked", create: true, tamper: func(w *world, b state.Answer) {
			if err := os.Remove(filepath.Join(w.cloud, w.idOf("b")+".json")); err != nil {
				w.t.Fatal(err)
			}
			w.keep(state.AnswerName("b"), state.Answer{Address: "b", Type: b.Type})
		}},
		{name: "asked without answer", tamper: func(w *world, b state.Answer) {
			w.keep(state.AnswerName("b"), state.Answer{Address: "b", Type: b.Type, Asked: true})
		}},
		{name: "another address", tamper: func(w *world, b state.Answer) {
			os.Remove(filepath.Join(w.answersDir(), state.AnswerName("b")))
			b.Address = "a"
			w.keep(state.AnswerName("a"), b)
		}},
		{name: "stored under another name", tamper: func(w *world, b state.Answer) {
			os.Remove(filepath.Join(w.answersDir(), state.AnswerName("b")))
			w.keep(state.AnswerName("key"), b)
		}},
		{name: "another type", tamper: func(w *world, b state.Answer) {
			b.Type = w.tp.Type + "_latent"
			w.keep(state.AnswerName("b"), b)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t, tfplugintest.Framework)
			w.tune = keeper
			cfg := interrupt(t, w)
			b := w.answer("b")
			if !b.Asked || b.Response == nil {
				t.Fatalf("b's kept answer: asked %v, %d bytes of response", b.Asked, len(b.Response))
			}
			if ents, _ := os.ReadDir(w.answersDir()); len(ents) != 1 {
				t.Errorf("%d kept answers, want only b's: a's and key's are recorded", len(ents))
			}
			idA := w.idOf("a")
			if c.tamper != nil {
				c.tamper(w, b)
			}
			pl, err := w.engine(cfg).Plan(t.Context(), cfg)
			if !c.folded && !c.create {
				var ie *engine.InterruptedError
				if !errors.As(err, &ie) || err.Error() != refusalOfB {
					t.Fatalf("plan: %v, want\n%s", err, refusalOfB)
				}
				_, err = w.engine(cfg).Apply(t.Context(), cfg, engine.ApplyOptions{AutoApprove: true}, nil)
				if !errors.As(err, &ie) || err.Error() != refusalOfB {
					t.Fatalf("apply: %v, want\n%s", err, refusalOfB)
				}
				st := w.state()
				if st.Resources["a"].ProviderID != idA || st.Resources["b"] != nil || st.Interrupted["b"] == "" {
					t.Errorf("after the refused apply: a %s (want %s), b %+v, interrupted %v", st.Resources["a"].ProviderID, idA, st.Resources["b"], st.Interrupted)
				}
				if diff := cmp.Diff([]string{"a", "b"}, w.items()); diff != "" {
					t.Errorf("cloud (-want +got):\n%s", diff)
				}
				return
			}
			if err != nil {
				t.Fatalf("plan: %v", err)
			}
			if ch := change(pl, "b"); (ch != nil && ch.Action == plan.Create) != c.create || ch != nil && ch.Action != plan.Create && ch.Action != plan.NoOp {
				t.Errorf("plan of b: %+v, want create %v, else nothing", ch, c.create)
			}
			w.apply(cfg)
			st := w.state()
			if len(st.Interrupted) != 0 || st.Resources["b"] == nil || st.Resources["b"].ProviderID != w.idOf("b") {
				t.Errorf("after the apply: interrupted %v, b %+v", st.Interrupted, st.Resources["b"])
			}
			if diff := cmp.Diff([]string{"a", "b"}, w.items()); diff != "" {
				t.Errorf("cloud (-want +got):\n%s", diff)
			}
			if ents, _ := os.ReadDir(w.answersDir()); len(ents) != 0 {
				t.Errorf("%d kept answers left after the apply", len(ents))
			}
			if p := w.plan(cfg); p.HasChanges() {
				t.Errorf("plan after the apply: %+v", p.Changes)
			}
		})
	}
}

// TestKeptAnswerNotForgotten: b's create was answered with an object its
// journal keeper kept; destroy does not fold answers, so forgetting b's
// intent there (--forget-interrupted b) would lose the only record of
// that object: it is refused, naming the answer, and the intent and the
// answer stay.
func TestKeptAnswerNotForgotten(t *testing.T) {
	w := newWorld(t, tfplugintest.Framework)
	w.tune = keeper
	cfg := interrupt(t, w)
	_, err := w.engine(cfg).Destroy(t.Context(), engine.ApplyOptions{AutoApprove: true, ForgetInterrupted: []string{"b"}})
	if err == nil || !strings.Contains(err.Error(), "--forget-interrupted b: the provider's answer to its create is kept in ") {
		t.Fatalf("destroy --forget-interrupted b: %v, want it refused for the kept answer", err)
	}
	if st := w.state(); st.Interrupted["b"] == "" {
		t.Errorf("b's intent was dropped: %v", st.Interrupted)
	}
	if b := w.answer("b"); b.Response == nil {
		t.Error("b's kept answer lost its response")
	}
	if diff := cmp.Diff([]string{"a", "b"}, w.items()); diff != "" {
		t.Errorf("cloud (-want +got):\n%s", diff)
	}
}

// TestSavedPlanOfAKeptAnswer: a plan saved after the kill folded b's kept
// answer in memory; applying that saved plan is not refused as stale (the
// fold's own write once moved the serial under it), and records b.
func TestSavedPlanOfAKeptAnswer(t *testing.T) {
	w := newWorld(t, tfplugintest.Framework)
	w.tune = keeper
	cfg := interrupt(t, w)
	pl, err := w.engine(cfg).Plan(t.Context(), cfg)
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	if _, err := w.engine(cfg).Apply(t.Context(), cfg, engine.ApplyOptions{AutoApprove: true}, pl); err != nil {
		t.Fatalf("apply of the saved plan: %v", err)
	}
	st := w.state()
	if st.Resources["b"] == nil || st.Resources["b"].ProviderID != w.idOf("b") || len(st.Interrupted) != 0 {
		t.Errorf("after the apply: b %+v, interrupted %v", st.Resources["b"], st.Interrupted)
	}
	if diff := cmp.Diff([]string{"a", "b"}, w.items()); diff != "" {
		t.Errorf("cloud (-want +got):\n%s", diff)
	}
}
