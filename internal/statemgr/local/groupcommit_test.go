package local

import (
	"sync"
	"testing"

	"github.com/kyku/action/internal/state"
)

// Concurrent appends share fsyncs (group commit) and none is lost.
func TestJournalGroupCommit(t *testing.T) {
	b := New(t.TempDir(), "prod", Options{})
	const goroutines, each = 10, 100
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				e := state.Entry{Seq: int64(g*each + i + 1), Lineage: "l", Op: state.OpDelete, Name: "r"}
				if err := b.Append(t.Context(), e); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	entries, err := b.Entries(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != goroutines*each {
		t.Fatalf("journal holds %d entries, want %d", len(entries), goroutines*each)
	}
	for i, e := range entries {
		if e.Seq != int64(i+1) {
			t.Fatalf("entry %d has seq %d", i, e.Seq)
		}
	}
	b.journalMu.Lock()
	syncs := b.syncs
	b.journalMu.Unlock()
	if syncs >= goroutines*each {
		t.Errorf("%d fsyncs for %d concurrent appends: no group commit", syncs, goroutines*each)
	}
	t.Logf("%d appends, %d fsyncs", goroutines*each, syncs)
}
