package tfplugin

import "testing"

// SetNoteRead has f called where Kyku has read a note's Note for the
// call it sends to its keeper (noteRead), until the test ends.
func SetNoteRead(t testing.TB, f func(path string)) {
	noteRead = f
	t.Cleanup(func() { noteRead = func(string) {} })
}
