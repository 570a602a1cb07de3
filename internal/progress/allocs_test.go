package progress

import (
	"io"
	"testing"
	"time"

	"github.com/kyku/action/internal/plan"
)

// A plain log writes a line as each change starts and as it is done (two
// an instance in an apply of thousands): the line is made in the log's
// buffer, allocating nothing of its own.
func TestPlainEventAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	p := NewPlain(io.Discard, Options{})
	defer p.Close()
	for _, e := range []Event{
		{Kind: Started, Action: plan.Create, Type: "null_resource", Name: `module.site["site-00"].null_resource.node[0]`},
		{Kind: Done, Action: plan.Create, Type: "null_resource", Name: `module.site["site-00"].null_resource.node[0]`, Elapsed: 8 * time.Millisecond, ID: "1433568891532660606"},
		{Kind: Done, Action: plan.Update, Type: "Vm", Name: "web[2]", Elapsed: 83 * time.Second, ID: "i-0abc"},
	} {
		p.Event(e) // the log's timer and buffer, once
		if n := testing.AllocsPerRun(100, func() { p.Event(e) }); n != 0 {
			t.Errorf("%s: %v allocations an event, want none", PlainLine(e), n)
		}
	}
}
