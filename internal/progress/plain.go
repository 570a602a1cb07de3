package progress

import (
	"io"
	"sync"
)

// Plain prints one line per event with no ANSI sequences, for CI logs.
// It is safe for concurrent use; lines never interleave.
type Plain struct {
	mu sync.Mutex
	w  io.Writer
}

// NewPlain returns a Plain view writing to w. Options are accepted for
// symmetry with NewTerminal; a plain log has no colour and no clock.
func NewPlain(w io.Writer, _ Options) *Plain {
	return &Plain{w: w}
}

// PlainLine is the log line for e, without the trailing newline, e.g.
// `create Vpc "main-vpc": done in 1.2s (id 1001)`.
func PlainLine(e Event) string {
	return oneLine(subject(e) + ": " + describe(e, "FAILED"))
}

// Event writes the line for e. Write errors are ignored: progress output
// must never fail an apply.
func (p *Plain) Event(e Event) {
	line := PlainLine(e) + "\n"
	p.mu.Lock()
	defer p.mu.Unlock()
	_, _ = io.WriteString(p.w, line)
}

// Notice writes line as it is.
func (p *Plain) Notice(line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, _ = io.WriteString(p.w, oneLine(line)+"\n")
}

// Close does nothing: every line is written when its event arrives.
func (p *Plain) Close() {}
