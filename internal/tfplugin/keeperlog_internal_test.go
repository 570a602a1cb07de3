package tfplugin

import (
	"os"
	"path/filepath"
	"testing"
)

// TestLogRemovedAsItWasMadeIsMadeAgain: a log the next apply's answer
// box removes between its making and the keeper's lock (it answered no
// note yet) is made again: the keeper's records go to a file the box can
// find by name, not to one with no name.
func TestLogRemovedAsItWasMadeIsMadeAgain(t *testing.T) {
	removed := 0
	logMade = func(path string) {
		if removed == 0 {
			if err := os.Remove(path); err != nil {
				t.Error(err)
			}
			removed++
		}
	}
	t.Cleanup(func() { logMade = func(string) {} })
	var ls answerLogs
	box := filepath.Join(t.TempDir(), "state.answers")
	l, err := ls.beside(box)
	if err != nil {
		t.Fatal(err)
	}
	defer ls.close()
	held, err := l.f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	named, err := os.Stat(l.f.Name())
	if err != nil || !os.SameFile(held, named) {
		t.Fatalf("the keeper writes to a log with no name (removed: %d): %v", removed, err)
	}
}
