package local

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kyku/action/internal/state"
)

func entry(seq int64, name string) state.Entry {
	return state.Entry{Seq: seq, BaseSerial: 1, Lineage: "lin-1", Op: state.OpDelete, Name: name}
}

func TestJournalAfterACrash(t *testing.T) {
	ctx := t.Context()
	whole := `{"seq":1,"baseSerial":1,"lineage":"lin-1","op":"delete","name":"a"}` + "\n"
	second := `{"seq":2,"baseSerial":1,"lineage":"lin-1","op":"delete","name":"b"}`
	zeros := string(make([]byte, 5000))
	for _, tc := range []struct {
		name        string
		content     string
		wantBefore  []int64 // seqs Entries returns as found
		wantAfter   []int64 // seqs after one more Append (seq 3)
		wantCorrupt bool
	}{
		{"torn last line is ignored and cut", whole + second[:30], []int64{1}, []int64{1, 3}, false},
		{"whole last entry missing only its newline is kept", whole + second, []int64{1, 2}, []int64{1, 2, 3}, false},
		{"torn first and only line", second[:10], nil, []int64{3}, false},
		{"corrupt line in the middle is an error", whole + "{oops\n" + second + "\n", nil, nil, true},
		// A journal grows in zeroed chunks (growJournal): what a crash
		// leaves ends with them.
		{"zeros after the last line are cut", whole + zeros, []int64{1}, []int64{1, 3}, false},
		{"torn last line before the zeros is ignored and cut", whole + second[:30] + zeros, []int64{1}, []int64{1, 3}, false},
		{"whole last entry before the zeros is kept", whole + second + zeros, []int64{1, 2}, []int64{1, 2, 3}, false},
		{"zeros alone", zeros, nil, []int64{3}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "state.prod.journal")
			if err := os.WriteFile(path, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			b := New(dir, "prod", fastOptions())
			got, err := b.Entries(ctx)
			if tc.wantCorrupt {
				if !errors.Is(err, state.ErrCorrupt) || !strings.Contains(err.Error(), "line 2") {
					t.Fatalf("Entries error = %v; want ErrCorrupt naming line 2", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Entries: %v", err)
			}
			if d := cmp.Diff(tc.wantBefore, seqs(got)); d != "" {
				t.Errorf("entries after the crash (-want +got):\n%s", d)
			}
			if err := b.Append(ctx, entry(3, "c")); err != nil {
				t.Fatal(err)
			}
			got, err = b.Entries(ctx)
			if err != nil {
				t.Fatalf("Entries after Append: %v", err)
			}
			if d := cmp.Diff(tc.wantAfter, seqs(got)); d != "" {
				t.Errorf("entries after the next append (-want +got):\n%s", d)
			}
		})
	}
}

// TestJournalAppendOnlyAppends: each append adds its line after the
// last, and nothing else but the zeros the journal grows by, in chunks:
// the appends that fit leave its size as it was (a data sync then writes
// no size).
func TestJournalAppendOnlyAppends(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	b := New(dir, "prod", fastOptions())
	path := filepath.Join(dir, "state.prod.journal")
	var ends []int
	var sizes []int
	for i := int64(1); i <= 3; i++ {
		if err := b.Append(ctx, entry(i, "x")); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		end := len(bytes.TrimRight(data, "\x00"))
		if end == 0 || data[end-1] != '\n' {
			t.Fatalf("after append %d the journal's data ends with %q, want a newline", i, data[max(end-10, 0):end])
		}
		ends = append(ends, end)
		sizes = append(sizes, len(data))
	}
	if sizes[0] != sizes[1] || sizes[1] != sizes[2] || sizes[0] <= ends[2] {
		t.Errorf("journal sizes %v with its data ending at %v: want one size, zeroed past the lines", sizes, ends)
	}
	if ends[1]-ends[0] != ends[2]-ends[1] || ends[0] != ends[1]-ends[0] {
		t.Errorf("journal data ends at %v: each append should add one line of the same size", ends)
	}
}

func seqs(es []state.Entry) []int64 {
	var out []int64
	for _, e := range es {
		out = append(out, e.Seq)
	}
	return out
}
