package tfplugin_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/tfplugin"
)

// TestKeeperLogsNotedAnswers: a create whose note has a Note (as the
// answer box makes them) has, by the time the client has its answer, the
// asked mark in the note's file (synced there, with its Note, before the
// provider was asked) and the answer in the keeper's log beside the box,
// named by that Note, not written over the note (a note half-rewritten by
// a machine crash would no longer name it); the log goes when the keeper
// ends once the note is gone. Where the log cannot be made (a file in its
// place), the answer is kept in the note's file, synced there, and the
// create goes on.
func TestKeeperLogsNotedAnswers(t *testing.T) {
	if testing.Short() {
		t.Skip("process test")
	}
	for _, blocked := range []bool{false, true} {
		t.Run(map[bool]string{false: "logged", true: "no log"}[blocked], func(t *testing.T) {
			p, _ := startKept(t)
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
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			kept, err := state.DecodeAnswer(filepath.Base(path), data)
			if err != nil {
				t.Fatalf("the note when the create returns: %v", err)
			}
			logs, _ := filepath.Glob(filepath.Join(logDir, state.KeeperLogPattern))
			if blocked {
				if len(logs) != 0 || kept.Note != "" || kept.Response == nil {
					t.Errorf("%d logs, the note's Note %q, its answer %q; want no log, the answer synced in the note alone", len(logs), kept.Note, kept.Response)
				}
				return
			}
			if !kept.Asked || kept.Response != nil || kept.Note != "n1" {
				t.Fatalf("the note when the create returns: %+v; want the asked mark with its Note, the answer in the log only", kept)
			}
			if len(logs) != 1 {
				t.Fatalf("%d keeper logs, want 1", len(logs))
			}
			log, err := os.ReadFile(logs[0])
			if err != nil {
				t.Fatal(err)
			}
			recs := state.AnswerRecords(log)
			if len(recs) != 1 || !recs[0].Asked || recs[0].Response == nil || recs[0].Note != "n1" {
				t.Fatalf("the log holds %+v, want the answer alone, named by the note's Note", recs)
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

// TestKeeperRefusesCreateOfAnotherNote: a create reaching the keeper
// after the address was noted again (a call the killed apply wrote to
// the keeper's pipe, read once the next apply had made its own note,
// with a Note of its own) is refused unasked: the provider makes no
// object, the keeper logs no record and leaves the later note as it is,
// and Kyku's side fails with ErrNotSent saying why. The same create made
// for the note that is there goes on.
func TestKeeperRefusesCreateOfAnotherNote(t *testing.T) {
	if testing.Short() {
		t.Skip("process test")
	}
	p, cloud := startKept(t)
	box := filepath.Join(t.TempDir(), "state.answers")
	if err := os.Mkdir(box, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(box, state.AnswerName("fwtest_held.a"))
	writeNote(t, path, "n1")
	// The call names n1, read as it is sent; the keeper finds n2.
	tfplugin.SetNoteRead(t, func(string) { writeNote(t, path, "n2") })
	_, err := heldCreateUnnoted(p, "0s", path)
	if !errors.Is(err, tfplugin.ErrNotSent) || !strings.Contains(err.Error(), "fwtest_held.a") || !strings.Contains(err.Error(), "noted again since this call was sent") {
		t.Fatalf("a create for a note noted again since: %v, want ErrNotSent saying so", err)
	}
	if ents, _ := os.ReadDir(cloud); len(ents) != 0 {
		t.Errorf("the cloud holds %d objects, want none: the provider was asked", len(ents))
	}
	logs, _ := filepath.Glob(filepath.Join(state.KeeperLogs(box), state.KeeperLogPattern))
	for _, l := range logs {
		if data, err := os.ReadFile(l); err != nil || len(state.AnswerRecords(data)) != 0 {
			t.Errorf("the keeper's log %s: %d records, %v; want none", l, len(state.AnswerRecords(data)), err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := state.DecodeAnswer(filepath.Base(path), data); err != nil || n.Note != "n2" || n.Asked {
		t.Errorf("the later note: %+v, %v; want n2's, not asked", n, err)
	}

	tfplugin.SetNoteRead(t, func(string) {})
	if _, err := heldCreateUnnoted(p, "0s", path); err != nil {
		t.Fatalf("the create for the note there: %v", err)
	}
	if objs, _ := filepath.Glob(filepath.Join(cloud, "held-*.json")); len(objs) != 1 {
		t.Errorf("the cloud holds %d objects after the create for n2, want 1", len(objs))
	}

	// The engine names the Note it noted (ApplyRequest.Note): the note
	// is not read again, and a call naming n2 finds n3 and is refused.
	writeNote(t, path, "n3")
	tfplugin.SetNoteRead(t, func(string) { t.Error("the note was read though the call named its Note") })
	if _, err := heldCreateNamed(p, "fwtest_held.a", "0s", path, "n2"); !errors.Is(err, tfplugin.ErrNotSent) {
		t.Fatalf("a create naming n2 for the note n3: %v, want ErrNotSent", err)
	}
	if _, err := heldCreateNamed(p, "fwtest_held.a", "0s", path, "n3"); err != nil {
		t.Fatalf("the create naming the note there: %v", err)
	}
	if objs, _ := filepath.Glob(filepath.Join(cloud, "held-*.json")); len(objs) != 2 {
		t.Errorf("the cloud holds %d objects after the create for n3, want 2", len(objs))
	}
}

// writeNote notes fwtest_held.a's create at path with the Note note, as
// the answer box does: a whole file renamed into place.
func writeNote(t *testing.T, path, note string) {
	t.Helper()
	data, _ := state.EncodeAnswer(state.Answer{Address: "fwtest_held.a", Type: "fwtest_held", Note: note})
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}
