package local

import (
	"testing"

	"github.com/kyku/action/internal/state"
)

// An append of the journal, once warm, allocates nothing of its own: its
// line, the channel it waits on for the commit and the batch list are
// kept for the next (an apply appends twice a create).
func TestJournalAppendAllocatesNothingOnceWarm(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	b := New(t.TempDir(), "prod", Options{})
	r := &state.Resource{Name: "web", Type: "null_resource", ProviderID: "1433568891532660606", Config: map[string]any{"triggers": map[string]any{"name": "site-00-000"}}}
	seq := int64(0)
	appendOne := func() {
		seq++
		if err := b.Append(t.Context(), state.Entry{Seq: seq, Lineage: "l", Op: state.OpPut, Name: "web", Resource: r}); err != nil {
			t.Fatal(err)
		}
	}
	appendOne() // opens the journal
	if n := testing.AllocsPerRun(200, appendOne); n >= 0.5 {
		t.Errorf("%v allocations an append, want none", n)
	}
}
