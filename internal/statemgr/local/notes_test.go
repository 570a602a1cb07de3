package local_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr/local"
)

// TestNotesReuseTheirFiles: a note removed once its create is recorded
// leaves its file for the next note (no file made and removed per
// create), which reads as that note alone even where the keeper wrote a
// longer answer over the file before; the box holds nothing of the
// notes once they are released, nor a note still left (a create never
// recorded) less.
func TestNotesReuseTheirFiles(t *testing.T) {
	ctx := t.Context()
	box := local.AnswerDir(filepath.Join(t.TempDir(), "state.answers"))
	t.Cleanup(func() { _ = box.ReleaseNotes(ctx) })
	long := "module.site[\"" + strings.Repeat("x", 200) + "\"].null_resource.node[0]"
	if err := box.Note(ctx, state.Answer{Address: long, Type: "null_resource"}); err != nil {
		t.Fatal(err)
	}
	first, err := os.Stat(box.AnswerPath(long))
	if err != nil {
		t.Fatal(err)
	}
	// The keeper answers over the note (where it keeps no log).
	answered, _ := state.EncodeAnswer(state.Answer{Address: long, Type: "null_resource", Asked: true, Response: []byte(strings.Repeat("r", 500))})
	if err := os.WriteFile(box.AnswerPath(long), answered, 0); err != nil {
		t.Fatal(err)
	}
	if err := box.RemoveAnswer(ctx, state.AnswerName(long)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(box.AnswerPath(long)); !os.IsNotExist(err) {
		t.Fatalf("the removed answer is still there: %v", err)
	}
	for _, address := range []string{"a", "b"} {
		if err := box.Note(ctx, state.Answer{Address: address, Type: "t"}); err != nil {
			t.Fatal(err)
		}
	}
	a, err := os.Stat(box.AnswerPath("a"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.Stat(box.AnswerPath("b"))
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(first, a) && !os.SameFile(first, b) {
		t.Error("neither later note is written to the removed note's file: a file made per note")
	}
	kept, err := box.Answers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(kept) != 2 {
		t.Errorf("%d answers kept, want a's and b's notes", len(kept))
	}
	for _, address := range []string{"a", "b"} {
		n, err := state.DecodeAnswer(state.AnswerName(address), kept[state.AnswerName(address)])
		if err != nil || n.Asked || n.Response != nil || n.Note == "" {
			t.Errorf("%s's note: %+v, %v; want a note with its Note, neither asked nor answered", address, n, err)
		}
	}

	if err := box.RemoveAnswer(ctx, state.AnswerName("a")); err != nil {
		t.Fatal(err)
	}
	if err := box.ReleaseNotes(ctx); err != nil {
		t.Fatal(err)
	}
	if got := names(t, string(box)); len(got) != 1 || got[0] != state.AnswerName("b") {
		t.Errorf("the box after the notes were released: %q, want b's note alone", got)
	}
	// b's create is recorded by the next apply's fold.
	if err := box.RemoveAnswer(ctx, state.AnswerName("b")); err != nil {
		t.Fatal(err)
	}
	if got := names(t, string(box)); len(got) != 0 {
		t.Errorf("the box after b's answer was removed: %q, want nothing", got)
	}
}

// TestNotesAfterClearNotes: the files a killed apply reused for its
// notes are removed by the next apply's ClearNotes, as its half-written
// notes are; a process whose free file was removed so notes on in a new
// one.
func TestNotesAfterClearNotes(t *testing.T) {
	ctx := t.Context()
	box := local.AnswerDir(filepath.Join(t.TempDir(), "state.answers"))
	t.Cleanup(func() { _ = box.ReleaseNotes(ctx) })
	if err := box.Note(ctx, state.Answer{Address: "a", Type: "t"}); err != nil {
		t.Fatal(err)
	}
	if err := box.RemoveAnswer(ctx, state.AnswerName("a")); err != nil {
		t.Fatal(err)
	}
	if got := names(t, string(box)); len(got) != 1 || !strings.HasPrefix(got[0], ".") {
		t.Fatalf("the box: %q, want a's file alone, hidden", got)
	}
	if err := box.ClearNotes(ctx); err != nil {
		t.Fatal(err)
	}
	if got := names(t, string(box)); len(got) != 0 {
		t.Fatalf("the box after ClearNotes: %q, want nothing", got)
	}
	if err := box.Note(ctx, state.Answer{Address: "b", Type: "t"}); err != nil {
		t.Fatalf("a note after ClearNotes removed the free file: %v", err)
	}
	kept, err := box.Answers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := state.DecodeAnswer(state.AnswerName("b"), kept[state.AnswerName("b")]); err != nil || n.Address != "b" {
		t.Errorf("b's note: %+v, %v", n, err)
	}
}

// names are the names in dir.
func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// TestNotePaddedOverALongerAnswer: a note written to a slot whose last
// answer was longer is padded with spaces to that length instead of
// cutting the file (no truncate per create), and still reads as that
// note alone, to the fold and to a keeper reading up to 4 KiB; over an
// answer longer than maxPaddedNote the file is cut to the note.
func TestNotePaddedOverALongerAnswer(t *testing.T) {
	for _, c := range []struct {
		name     string
		response int
		padded   bool
	}{
		{"a short answer before", 600, true},
		{"a long answer before", 6000, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := t.Context()
			box := local.AnswerDir(filepath.Join(t.TempDir(), "state.answers"))
			t.Cleanup(func() { _ = box.ReleaseNotes(ctx) })
			if err := box.Note(ctx, state.Answer{Address: "x", Type: "t"}); err != nil {
				t.Fatal(err)
			}
			answered, _ := state.EncodeAnswer(state.Answer{Address: "x", Type: "t", Asked: true, Response: []byte(strings.Repeat("r", c.response))})
			if err := os.WriteFile(box.AnswerPath("x"), answered, 0); err != nil {
				t.Fatal(err)
			}
			if err := box.RemoveAnswer(ctx, state.AnswerName("x")); err != nil {
				t.Fatal(err)
			}
			if err := box.Note(ctx, state.Answer{Address: "y", Type: "t", Note: "n1"}); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(box.AnswerPath("y"))
			if err != nil {
				t.Fatal(err)
			}
			note, _ := state.EncodeAnswer(state.Answer{Address: "y", Type: "t", Note: "n1"})
			want := len(note)
			if c.padded {
				want = len(answered)
			}
			if len(data) != want || !strings.HasPrefix(string(data), string(note)) || strings.TrimRight(string(data[len(note):]), " ") != "" {
				t.Errorf("y's note is %d bytes %q, want its note padded with spaces to %d bytes", len(data), data, want)
			}
			if len(data) >= 4<<10 {
				t.Errorf("y's note is %d bytes: a keeper reads 4 KiB of a note", len(data))
			}
			n, err := state.DecodeAnswer(state.AnswerName("y"), data)
			if err != nil || n.Address != "y" || n.Note != "n1" || n.Asked || n.Response != nil {
				t.Errorf("y's note reads %+v, %v; want y's note, neither asked nor answered", n, err)
			}
		})
	}
}
