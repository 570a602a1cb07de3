package tfprovider_test

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// TestKeptAnswerFromKeeperLog: the journal keeper writes b's note without
// a sync and makes it durable in its own log. A machine that crashed
// before the note's writes reached the disk leaves the note as the
// engine wrote it, or marked asked only: the next apply folds b's answer
// from the keeper's log all the same (b recorded once, not created
// again, not refused), and removes the log with b's note.
func TestKeptAnswerFromKeeperLog(t *testing.T) {
	for _, asked := range []bool{false, true} {
		t.Run(map[bool]string{false: "noted", true: "asked"}[asked], func(t *testing.T) {
			w := newWorld(t, tfplugintest.Framework)
			w.tune = keeper
			cfg := interrupt(t, w)
			w.close()
			b := w.answer("b")
			if b.Note == "" || b.Response == nil {
				t.Fatalf("b's note: Note %q, %d bytes of response", b.Note, len(b.Response))
			}
			logs := filepath.Join(state.KeeperLogs(w.answersDir()), state.KeeperLogPattern)
			if got, _ := filepath.Glob(logs); len(got) != 1 {
				t.Fatalf("%d keeper logs, want 1", len(got))
			}
			w.keep(state.AnswerName("b"), state.Answer{Address: "b", Type: b.Type, Asked: asked, Note: b.Note})
			w.apply(cfg)
			st := w.state()
			if len(st.Interrupted) != 0 || st.Resources["b"] == nil || st.Resources["b"].ProviderID != w.idOf("b") {
				t.Errorf("after the apply: interrupted %v, b %+v", st.Interrupted, st.Resources["b"])
			}
			if diff := cmp.Diff([]string{"a", "b"}, w.items()); diff != "" {
				t.Errorf("cloud (-want +got):\n%s", diff)
			}
			if got, _ := filepath.Glob(logs); len(got) != 0 {
				t.Errorf("%d keeper logs left after the apply, want none", len(got))
			}
		})
	}
}
