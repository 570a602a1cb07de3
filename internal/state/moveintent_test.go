package state

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMoveCarriesIntent: a move (File.Move, and a journal's move entry
// folded) carries the open intent of an interrupted create with the
// name; an intent alone moves with MoveIntent; two intents would become
// one, so that move is refused, changing nothing.
func TestMoveCarriesIntent(t *testing.T) {
	const typ = "fwtest_item"
	for _, c := range []struct {
		name    string
		move    func(f *File) error
		intents map[string]string // before
		want    map[string]string
		wantErr string
	}{
		{name: "with the resource", move: func(f *File) error { return f.Move("a", "b") },
			intents: map[string]string{"a": typ}, want: map[string]string{"b": typ}},
		{name: "folded", move: func(f *File) error {
			Fold(f, []Entry{{Seq: 1, BaseSerial: 1, Lineage: "l", Op: OpMove, From: "a", Name: "b"}})
			return nil
		}, intents: map[string]string{"a": typ}, want: map[string]string{"b": typ}},
		{name: "alone", move: func(f *File) error { return f.MoveIntent("c", "d") },
			intents: map[string]string{"c": typ}, want: map[string]string{"d": typ}},
		{name: "none", move: func(f *File) error { return f.Move("a", "b") }},
		{name: "both", move: func(f *File) error { return f.Move("a", "b") },
			intents: map[string]string{"a": typ, "b": typ}, want: map[string]string{"a": typ, "b": typ},
			wantErr: `move "a" to "b": both have an open intent of an interrupted create`},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := New("p", "l", "")
			f.Metadata.Serial = 1
			f.Resources["a"] = &Resource{Name: "a", Type: typ, ProviderID: "a-1"}
			for n, ty := range c.intents {
				if f.Interrupted == nil {
					f.Interrupted = map[string]string{}
				}
				f.Interrupted[n] = ty
			}
			err := c.move(f)
			if got := errText(err); got != c.wantErr {
				t.Fatalf("move: %q, want %q", got, c.wantErr)
			}
			if diff := cmp.Diff(c.want, f.Interrupted); diff != "" {
				t.Errorf("intents (-want +got):\n%s", diff)
			}
		})
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
