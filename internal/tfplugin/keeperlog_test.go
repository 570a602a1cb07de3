package tfplugin_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/tfplugin"
	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// TestKeeperLogsNotedAnswers: a create whose note has a Note (as the
// answer box makes them) has its answer in the note's file and, durably,
// in the keeper's log beside the box, the same answer, by the time the
// client has it; the log goes when the keeper ends once the note is gone.
// Where the log cannot be made (a file in its place), the answer is kept
// in the note's file alone, synced there, and the create goes on.
func TestKeeperLogsNotedAnswers(t *testing.T) {
	if testing.Short() {
		t.Skip("process test")
	}
	for _, blocked := range []bool{false, true} {
		t.Run(map[bool]string{false: "logged", true: "no log"}[blocked], func(t *testing.T) {
			p, err := tfplugin.Start(t.Context(), tfplugin.Config{
				Name: "fwtest", Path: tfplugintest.Build(t, tfplugintest.Framework), Keeper: []string{os.Args[0], tfplugin.KeeperArg},
			})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			configure(t, p, map[string]any{"dir": t.TempDir()})
			box := filepath.Join(t.TempDir(), "state.answers")
			if err := os.Mkdir(box, 0o700); err != nil {
				t.Fatal(err)
			}
			logDir := state.KeeperLogs(box)
			if blocked {
				if err := os.WriteFile(logDir, nil, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			path := filepath.Join(box, state.AnswerName("fwtest_held.a"))
			data, _ := state.EncodeAnswer(state.Answer{Address: "fwtest_held.a", Type: "fwtest_held", Note: "n1"})
			if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := heldCreateUnnoted(p, "0s", path); err != nil {
				t.Fatal(err)
			}
			data, err = os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			kept, err := state.DecodeAnswer(filepath.Base(path), data)
			if err != nil || kept.Response == nil {
				t.Fatalf("the note when the create returns: %+v, %v; want the answer", kept, err)
			}
			logs, _ := filepath.Glob(filepath.Join(logDir, state.KeeperLogPattern))
			if blocked {
				if len(logs) != 0 || kept.Note != "" {
					t.Errorf("%d logs, the note's Note %q; want none, the note synced alone", len(logs), kept.Note)
				}
				return
			}
			if len(logs) != 1 {
				t.Fatalf("%d keeper logs, want 1", len(logs))
			}
			log, err := os.ReadFile(logs[0])
			if err != nil {
				t.Fatal(err)
			}
			recs := state.AnswerRecords(log)
			if len(recs) != 2 || !recs[0].Asked || recs[0].Response != nil {
				t.Fatalf("the log holds %d records, want the asked mark and the answer", len(recs))
			}
			if got := recs[1]; got.Note != "n1" || string(got.Response) != string(kept.Response) {
				t.Errorf("the log's answer (Note %q) is not the note's (Note %q)", got.Note, kept.Note)
			}
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			p.Close()
			if _, err := os.Stat(logs[0]); !os.IsNotExist(err) {
				t.Errorf("the log is left once its keeper ended with no note left: %v", err)
			}
		})
	}
}
