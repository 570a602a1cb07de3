package local

import (
	"sync"
	"testing"
	"testing/synctest"

	"github.com/kyku/action/internal/state"
)

// An append of the journal, once warm, allocates only the channel it
// waits on for its commit (two allocations: a channel of interface values
// has its buffer apart): its line and the batch list are kept for the
// next, and nothing is made to seal a line in clear (an apply appends
// twice a create; it was four).
func TestJournalAppendAllocatesOnlyItsChannel(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	b := New(t.TempDir(), "prod", Options{})
	seq := int64(0)
	appendOne := func() {
		seq++
		if err := b.Append(t.Context(), putEntry(seq)); err != nil {
			t.Fatal(err)
		}
	}
	appendOne() // opens the journal
	if n := testing.AllocsPerRun(200, appendOne); n > 2 {
		t.Errorf("%v allocations an append, want 2", n)
	}
}

// Appends made in a synctest bubble (as the tests of the packages above
// make them) and then outside it each wait on a channel of their own: a
// channel made in a bubble and used outside it is a fatal error.
func TestJournalAppendsInAndOutOfABubble(t *testing.T) {
	b := New(t.TempDir(), "prod", Options{})
	const n = 20
	synctest.Test(t, func(t *testing.T) {
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				if err := b.Append(t.Context(), putEntry(int64(i+1))); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
	})
	for i := range n {
		if err := b.Append(t.Context(), putEntry(int64(n+i+1))); err != nil {
			t.Fatal(err)
		}
	}
	entries, err := b.Entries(t.Context())
	if err != nil || len(entries) != 2*n {
		t.Fatalf("journal: %d entries, %v; want %d", len(entries), err, 2*n)
	}
}

// putEntry records journalRes at seq.
func putEntry(seq int64) state.Entry {
	return state.Entry{Seq: seq, Lineage: "l", Op: state.OpPut, Name: "web", Resource: journalRes}
}

var journalRes = &state.Resource{Name: "web", Type: "null_resource", ProviderID: "1433568891532660606", Config: map[string]any{"triggers": map[string]any{"name": "site-00-000"}}}
