package local_test

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr/local"
)

// TestAnswerBoxReadsKeeperLogs: a keeper's log record of a note (its
// Note) that says the create went further than the note's file does (the
// machine lost the file's unsynced write) is the answer read; a record of
// another note of the address (an earlier create's), one of an address
// with no note, and a record cut short are not. ClearNotes removes a log
// once no note it answers is left, never one its keeper still holds.
func TestAnswerBoxReadsKeeperLogs(t *testing.T) {
	ctx := t.Context()
	box := local.AnswerDir(filepath.Join(t.TempDir(), "state.answers"))
	if err := box.Note(ctx, state.Answer{Address: "x", Type: "t"}); err != nil {
		t.Fatal(err)
	}
	if err := box.Note(ctx, state.Answer{Address: "z", Type: "t"}); err != nil {
		t.Fatal(err)
	}
	note := func(address string) state.Answer {
		t.Helper()
		data, err := os.ReadFile(box.AnswerPath(address))
		if err != nil {
			t.Fatal(err)
		}
		n, err := state.DecodeAnswer(state.AnswerName(address), data)
		if err != nil || n.Note == "" {
			t.Fatalf("the note of %s: %+v, %v; want one with its Note", address, n, err)
		}
		return n
	}
	x, z := note("x"), note("z")
	if x.Note == z.Note {
		t.Fatalf("two notes with one Note %q", x.Note)
	}
	var log []byte
	for _, a := range []state.Answer{
		{Address: "x", Type: "t", Asked: true, Response: []byte("earlier"), Note: "an earlier note"},
		{Address: "x", Type: "t", Asked: true, Note: x.Note},
		{Address: "x", Type: "t", Asked: true, Response: []byte("kept"), Note: x.Note},
		{Address: "y", Type: "t", Asked: true, Response: []byte("no note"), Note: "y's"},
	} {
		data, err := state.EncodeAnswer(a)
		if err != nil {
			t.Fatal(err)
		}
		log = state.AppendAnswerRecord(log, data)
	}
	zAsked, _ := state.EncodeAnswer(state.Answer{Address: "z", Type: "t", Asked: true, Note: z.Note})
	torn := state.AppendAnswerRecord(nil, zAsked)
	log = append(log, torn[:len(torn)-3]...)
	logDir := state.KeeperLogs(string(box))
	if err := os.MkdirAll(logDir, 0o700); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(logDir, ".keeper-1.log")
	if err := os.WriteFile(logPath, log, 0o600); err != nil {
		t.Fatal(err)
	}

	kept, err := box.Answers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(kept) != 2 {
		t.Errorf("%d answers, want x's and z's", len(kept))
	}
	for address, want := range map[string]string{"x": "kept", "z": ""} {
		a, err := state.DecodeAnswer(state.AnswerName(address), kept[state.AnswerName(address)])
		if err != nil {
			t.Fatal(err)
		}
		if string(a.Response) != want || a.Asked != (want != "") {
			t.Errorf("%s's answer: asked %v, response %q; want response %q", address, a.Asked, a.Response, want)
		}
	}

	// A log its keeper holds, answering nothing left.
	held := filepath.Join(logDir, ".keeper-2.log")
	if err := os.WriteFile(held, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(held)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	exists := func(path string) bool { _, err := os.Stat(path); return err == nil }
	if err := box.ClearNotes(ctx); err != nil {
		t.Fatal(err)
	}
	if !exists(logPath) || !exists(held) {
		t.Fatalf("ClearNotes removed a log x's note needs (%v) or one its keeper holds (%v)", !exists(logPath), !exists(held))
	}
	if err := box.RemoveAnswer(ctx, state.AnswerName("x")); err != nil {
		t.Fatal(err)
	}
	if err := box.ClearNotes(ctx); err != nil {
		t.Fatal(err)
	}
	if exists(logPath) {
		t.Error("a log no note left needs is still there")
	}
	if !exists(held) {
		t.Error("ClearNotes removed a log its keeper holds")
	}
}
