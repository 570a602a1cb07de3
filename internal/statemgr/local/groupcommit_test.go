package local

import (
	"bytes"
	"encoding/json"
	"os"
	"sync"
	"testing"

	"github.com/kyku/action/internal/durable"
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

// TestJournalAppendWaitsForItsSync: an append returns only once a data
// sync that started after its line was written has finished: no line of
// a batch is acknowledged before the batch's sync.
func TestJournalAppendWaitsForItsSync(t *testing.T) {
	var mu sync.Mutex
	synced := map[int64]bool{} // the entries a finished sync covered
	journalSync = func(f *os.File) error {
		data, err := os.ReadFile(f.Name()) // what the sync covers
		if err != nil {
			return err
		}
		if err := durable.DataSync(f); err != nil {
			return err
		}
		var lines []int64
		for line := range bytes.Lines(bytes.TrimRight(data, "\x00")) {
			var e state.Entry
			if json.Unmarshal(line, &e) == nil {
				lines = append(lines, e.Seq)
			}
		}
		mu.Lock()
		defer mu.Unlock()
		for _, seq := range lines {
			synced[seq] = true
		}
		return nil
	}
	t.Cleanup(func() { journalSync = durable.DataSync })
	b := New(t.TempDir(), "prod", Options{})
	const goroutines, each = 10, 30
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range each {
				seq := int64(g*each + i + 1)
				if err := b.Append(t.Context(), state.Entry{Seq: seq, Lineage: "l", Op: state.OpDelete, Name: "r"}); err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				ok := synced[seq]
				mu.Unlock()
				if !ok {
					t.Errorf("entry %d's append returned before a sync covering it finished", seq)
					return
				}
			}
		})
	}
	wg.Wait()
	if n := b.JournalSyncs(); n >= goroutines*each {
		t.Errorf("%d syncs for %d concurrent appends: no group commit", n, goroutines*each)
	}
}
