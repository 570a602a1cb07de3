package progress

import (
	"io"
	"sync"
	"time"
)

// Terminal redraws a live region in place: finished changes become permanent
// lines above it, and it shows one line per running change with a spinner
// and elapsed time, then a status line. A ticker goroutine redraws every
// Interval; Close stops it and draws the final frame. Safe for concurrent
// use.
type Terminal struct {
	w       io.Writer
	now     func() time.Time
	secrets *SecretBook
	st      style
	stop    chan struct{}
	done    chan struct{}
	once    sync.Once

	mu     sync.Mutex
	b      *board
	lines  int // lines the last frame's live region printed (linesPrinted)
	spin   int
	frames int
	closed bool
}

// NewTerminal starts a Terminal view writing to w. The caller must Close it.
func NewTerminal(w io.Writer, opts Options) *Terminal {
	opts = opts.withDefaults()
	t := &Terminal{
		w:       w,
		now:     opts.Now,
		secrets: opts.Secrets,
		st:      style{color: !opts.NoColor, width: opts.Width, maxLive: opts.MaxLive},
		stop:    make(chan struct{}),
		done:    make(chan struct{}),
		b:       newBoard(opts.Total),
	}
	go t.loop(opts.Interval)
	return t
}

func (t *Terminal) loop(interval time.Duration) {
	defer close(t.done)
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-t.stop:
			return
		case <-tick.C:
			t.mu.Lock()
			t.spin++
			t.draw(false)
			t.mu.Unlock()
		}
	}
}

// Event records e; it shows on the next redraw. Events after Close are
// ignored.
func (t *Terminal) Event(e Event) {
	if e.Err != nil { // the book builds its scrubber only when asked
		e.Err = t.secrets.Known().Error(e.Err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return
	}
	t.b.add(e, t.now())
}

// Notice prints line at once as a permanent line above the live region
// (after the changes that finished before it), where no redraw erases it;
// after Close, below the final frame.
func (t *Terminal) Notice(line string) {
	line = t.secrets.Known().Scrub(line)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		_, _ = io.WriteString(t.w, oneLine(line)+"\n")
		return
	}
	t.b.notices = append(t.b.notices, oneLine(line))
	t.draw(false)
}

// Close stops the redraw goroutine, draws the final frame and leaves the
// cursor at the start of a fresh line. Calling it again does nothing.
func (t *Terminal) Close() {
	t.once.Do(func() {
		close(t.stop)
		<-t.done
		t.mu.Lock()
		defer t.mu.Unlock()
		t.draw(true)
		t.closed = true
	})
}

// draw writes one frame; t.mu must be held. Write errors are ignored:
// progress output must never fail an apply.
func (t *Terminal) draw(final bool) {
	perm, live := t.b.frame(t.now(), t.spin, t.st, final)
	out := redraw(t.lines, perm, live)
	t.lines = len(live)
	if final {
		out += "\n"
		t.lines = 0
	}
	t.frames++
	_, _ = io.WriteString(t.w, out)
}
