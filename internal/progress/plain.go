package progress

import (
	"bytes"
	"io"
	"sync"
	"time"
	"unicode"
)

// Plain prints one line per event with no ANSI sequences, for CI logs.
// It is safe for concurrent use; lines never interleave. Lines are
// gathered and written together at most flushAfter after the first of
// them (one write, not one per line: an apply of 5,000 resources prints
// 10,000 lines), at once for a notice, and by Close.
type Plain struct {
	secrets *SecretBook
	mu      sync.Mutex
	w       io.Writer
	buf     []byte
	timer   *time.Timer
	pending bool // the timer is set to flush buf
	closed  bool
}

// flushAfter is how long a line may wait to be written with the next.
const flushAfter = 50 * time.Millisecond

// flushAt is how much Plain gathers before writing whatever the timer says.
const flushAt = 32 << 10

// NewPlain returns a Plain view writing to w. Of the options it uses only
// Secrets: a plain log has no colour and no clock.
func NewPlain(w io.Writer, opts Options) *Plain {
	return &Plain{w: w, secrets: opts.Secrets}
}

// PlainLine is the log line for e, without the trailing newline, e.g.
// `create Vpc "main-vpc": done in 1.2s (id 1001)`.
func PlainLine(e Event) string {
	return string(appendPlainLine(nil, e))
}

// appendPlainLine appends PlainLine(e) to b: an apply writes two lines a
// resource, so they are made in place rather than of strings joined.
func appendPlainLine(b []byte, e Event) []byte {
	start := len(b)
	b = append(appendSubject(b, e), ": "...)
	if e.Kind == Done {
		b = appendDone(b, e)
	} else {
		b = append(b, describe(e, "FAILED")...)
	}
	if bytes.IndexFunc(b[start:], unicode.IsControl) >= 0 {
		b = append(b[:start], oneLine(string(b[start:]))...)
	}
	return b
}

// Event writes the line for e, within flushAfter. Write errors are
// ignored: progress output must never fail an apply.
func (p *Plain) Event(e Event) {
	if e.Err != nil { // the book builds its scrubber only when asked
		e.Err = p.secrets.Known().Error(e.Err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.buf = append(appendPlainLine(p.buf, e), '\n')
	switch {
	case p.closed || len(p.buf) >= flushAt:
		p.flushLocked()
	case !p.pending:
		p.pending = true
		if p.timer == nil {
			p.timer = time.AfterFunc(flushAfter, p.flush)
		} else {
			p.timer.Reset(flushAfter)
		}
	}
}

// Notice writes line as it is, at once (after the lines before it).
func (p *Plain) Notice(line string) {
	line = p.secrets.Known().Scrub(line)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.buf = append(append(p.buf, oneLine(line)...), '\n')
	p.flushLocked()
}

// Close writes what is gathered; later events are written at once.
func (p *Plain) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	if p.timer != nil {
		p.timer.Stop()
	}
	p.flushLocked()
}

func (p *Plain) flush() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.flushLocked()
}

func (p *Plain) flushLocked() {
	p.pending = false
	if len(p.buf) > 0 {
		_, _ = p.w.Write(p.buf)
		p.buf = p.buf[:0]
	}
}
