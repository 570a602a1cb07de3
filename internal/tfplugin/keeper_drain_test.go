package tfplugin

import (
	"errors"
	"testing"
)

type failingWriter struct{ calls int }

func (f *failingWriter) Write(b []byte) (int, error) {
	f.calls++
	return 0, errors.New("broken pipe")
}

// TestDrainNeverFails: a provider's output given to the keeper's drain
// never fails, once the writer behind it (Kyku's pipe) has broken, so a
// provider logging after Kyku died goes on with its create; the broken
// writer is not tried again.
func TestDrainNeverFails(t *testing.T) {
	w := &failingWriter{}
	d := &drain{w: w}
	for range 3 {
		if n, err := d.Write([]byte("[DEBUG] creating\n")); err != nil || n != len("[DEBUG] creating\n") {
			t.Fatalf("Write = %d, %v; want all of it, no error", n, err)
		}
	}
	if w.calls != 1 {
		t.Errorf("the broken writer was tried %d times, want once", w.calls)
	}
}
