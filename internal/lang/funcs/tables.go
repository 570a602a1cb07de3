package funcs

import (
	"maps"
	"sync"
	"time"

	"github.com/zclconf/go-cty/cty/function"
)

// Tables are the two function tables of one configuration, built on
// first use from the options opts gives: the pure one a plan evaluates
// with (impure functions unknown, Options.PureOnly) and the full one
// applying does. Safe for concurrent use: expressions are evaluated
// from many goroutines.
type Tables struct {
	opts       func() Options
	once       sync.Once
	pure, full map[string]function.Function

	atMu sync.Mutex // guards at and atFull (ApplyingAt)
	at   time.Time
	// atFull is the full table with timestamp() reading at: one apply
	// evaluates every expression at one time, so it is built once.
	atFull map[string]function.Function
}

// NewTables returns the tables of the options opts gives when first used.
func NewTables(opts func() Options) *Tables { return &Tables{opts: opts} }

// For is the table applying (true) or planning (false) evaluates with.
func (t *Tables) For(applying bool) map[string]function.Function {
	t.once.Do(func() {
		opts := t.opts()
		opts.PureOnly = false
		t.full = Table(opts)
		opts.PureOnly = true
		t.pure = Table(opts)
	})
	if applying {
		return t.full
	}
	return t.pure
}

// ApplyingAt is the table applying evaluates with, timestamp() returning
// at: for a configuration read before its apply's clock was known (a
// kyku.yaml), the apply's time handed in when it evaluates.
func (t *Tables) ApplyingAt(at time.Time) map[string]function.Function {
	full := t.For(true)
	t.atMu.Lock()
	defer t.atMu.Unlock()
	if t.atFull == nil || !t.at.Equal(at) {
		t.at, t.atFull = at, maps.Clone(full)
		t.atFull["timestamp"] = timestampFunc(func() time.Time { return at })
	}
	return t.atFull
}
