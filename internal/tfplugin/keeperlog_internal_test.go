package tfplugin

import (
	"fmt"
	"github.com/kyku/action/internal/durable"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/kyku/action/internal/state"
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

// TestGroupCommitWaitsForItsSync: a logged answer is acknowledged (its
// commit returns, and only then does the keeper reply to Kyku) once a
// data sync that started after its record was written has completed:
// never while its round's sync is held, and a record written while a
// sync is in flight waits for a later sync, not the one in flight, even
// when that one completes first. Each commit checks, as it returns, that
// a sync released by then covered its record (the log's length when
// the sync started).
func TestGroupCommitWaitsForItsSync(t *testing.T) {
	var ls answerLogs
	box := filepath.Join(t.TempDir(), "state.answers")
	l, err := ls.beside(box)
	if err != nil {
		t.Fatal(err)
	}
	defer ls.close()

	type syncStart struct {
		covered int64 // the log's length as the sync started
		release chan struct{}
	}
	starts := make(chan syncStart)
	stop := make(chan struct{}) // the test is over: no sync is held
	t.Cleanup(func() { syncLog = func(l *answerLog) error { return durable.DataSync(l.f) } })
	syncLog = func(l *answerLog) error {
		l.mu.Lock()
		s := syncStart{covered: l.off, release: make(chan struct{})}
		l.mu.Unlock()
		select {
		case starts <- s:
			select {
			case <-s.release:
			case <-stop:
			}
		case <-stop:
		}
		return durable.DataSync(l.f)
	}
	var (
		mu       sync.Mutex
		released []int64 // the syncs released, by what they covered
		unsynced []string
	)
	release := func(s syncStart) {
		mu.Lock()
		released = append(released, s.covered)
		mu.Unlock()
		close(s.release)
	}
	// Whatever happened, no commit is left waiting once the test ends.
	var commits sync.WaitGroup
	defer func() {
		close(stop)
		commits.Wait()
	}()
	nextStart := func(why string) syncStart {
		t.Helper()
		return Within(t, starts, 10*time.Second, why)
	}

	records := map[string][]byte{}
	var total int64
	for _, addr := range []string{"a", "b", "c"} {
		records[addr], _ = state.EncodeAnswer(state.Answer{Address: addr, Type: "t", Asked: true, Response: []byte{1, 2}, Note: "n-" + addr})
		total += int64(len(state.AppendAnswerRecord(nil, records[addr])))
	}
	done := make(chan string, len(records))
	commit := func(addr string) {
		commits.Go(func() {
			if err := l.commit(filepath.Join(box, addr), records[addr]); err != nil {
				t.Errorf("commit %s: %v", addr, err)
			}
			end := recordEnd(t, l, addr)
			mu.Lock()
			if !slices.ContainsFunc(released, func(covered int64) bool { return covered >= end }) {
				unsynced = append(unsynced, fmt.Sprintf("%s (its record ends at %d; syncs released had covered %v)", addr, end, released))
			}
			mu.Unlock()
			done <- addr
		})
	}
	returned := 0 // commits taken from done
	noneReturned := func(when string) {
		t.Helper()
		select {
		case addr := <-done:
			returned++
			t.Errorf("the commit of %s returned %s", addr, when)
		default:
		}
	}

	commit("a")
	first := nextStart("the first commit started no sync")
	// b and c are written while a's sync is held: each waits for a sync
	// of its own round, which starts once it is written.
	commit("b")
	commit("c")
	var later []syncStart
	for covered := int64(0); covered < total; {
		s := nextStart("records written while a sync was in flight started no sync after them: they rode on the one in flight")
		later = append(later, s)
		covered = s.covered
	}
	noneReturned("while every sync was held")
	release(first)
	if returned == 0 {
		returned++
		if addr := <-done; addr != "a" {
			t.Errorf("the commit of %s returned when the sync before its record was released", addr)
		}
	}
	noneReturned("while the syncs after their records were held")
	// The later rounds complete last first.
	for _, s := range slices.Backward(later) {
		release(s)
	}
	for ; returned < 3; returned++ {
		<-done
	}
	mu.Lock()
	defer mu.Unlock()
	if len(unsynced) > 0 {
		t.Errorf("acknowledged before a sync covering them completed: %q", unsynced)
	}
	data, err := os.ReadFile(l.f.Name())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range state.AnswerRecords(data) {
		got = append(got, a.Address)
	}
	slices.Sort(got)
	if !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("the log reads back %q, want a, b and c", got)
	}
}

// recordEnd is where the record of addr ends in l's file.
func recordEnd(t *testing.T, l *answerLog, addr string) int64 {
	data, err := os.ReadFile(l.f.Name())
	if err != nil {
		t.Error(err)
		return -1
	}
	var end int64
	for _, a := range state.AnswerRecords(data) {
		enc, _ := state.EncodeAnswer(a)
		end += int64(len(state.AppendAnswerRecord(nil, enc)))
		if a.Address == addr {
			return end
		}
	}
	t.Errorf("the log holds no record of %s", addr)
	return -1
}
