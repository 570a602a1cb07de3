package tfplugin

import (
	"testing"
	"time"

	"github.com/kyku/action/internal/durable"
)

// SetNoteRead has f called where Kyku has read a note's Note for the
// call it sends to its keeper (noteRead), until the test ends.
func SetNoteRead(t testing.TB, f func(path string)) {
	noteRead = f
	t.Cleanup(func() { noteRead = func(string) {} })
}

// SetLogSync has each data sync of a keeper's log in this process (a
// round of its group commit) made by f, given the log's length as the
// sync starts (what it covers) and the sync itself. For a keeper the
// test binary runs: it is set for the process's life.
func SetLogSync(f func(covered int64, sync func() error) error) {
	syncLog = func(l *answerLog) error {
		l.mu.Lock()
		covered := l.off
		l.mu.Unlock()
		return f(covered, func() error { return durable.DataSync(l.f) })
	}
}

// SetNoteOpened has f called where a note is opened for its create, before
// it is locked (noteOpened): until the test ends, or, given a nil t, for the
// process's life (a keeper the test binary runs).
func SetNoteOpened(t testing.TB, f func(path string)) {
	noteOpened = f
	if t != nil {
		t.Cleanup(func() { noteOpened = func(string) {} })
	}
}

// ErrMsgpackTooLong is the refusal of an array or map longer than its input.
var ErrMsgpackTooLong = errTooLong

// Within receives the next value from ch, or fails tb, saying why, when
// none comes within d.
func Within[T any](tb testing.TB, ch <-chan T, d time.Duration, why string) T {
	tb.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(d):
		tb.Fatal(why)
		var zero T
		return zero
	}
}
