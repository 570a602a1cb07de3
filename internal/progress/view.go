package progress

import (
	"io"
	"os"
	"time"

	"golang.org/x/term"
)

// View is a Hook that must be closed when the run ends: Close flushes the
// final output and stops any background work. Close is safe to call twice.
// Notice prints a line of the front door's own (an interrupt's notice)
// that stays on screen: the terminal view prints it above the live region,
// which its redraws never erase.
type View interface {
	Hook
	Notice(line string)
	Close()
}

// Options configure a view. The zero value is usable.
type Options struct {
	// NoColor disables colour; callers set it when NO_COLOR is present.
	NoColor bool
	// Now is the clock for elapsed times of running changes; default time.Now.
	Now func() time.Time
	// Interval is the terminal redraw (spinner) period; default 80ms.
	Interval time.Duration
	// Total is the number of changes in the run, shown as "done/total";
	// zero means unknown.
	Total int
	// Width, when positive, truncates terminal lines so none wraps (a wrapped
	// line would break the redraw's line count).
	Width int
	// MaxLive, when positive, caps the running lines shown by the terminal
	// view (the rest are summarised on one line) so a frame never grows
	// taller than the screen; default 20.
	MaxLive int
	// Secrets are scrubbed from every event's error and every notice
	// before anything is shown: a provider's error may quote a sensitive
	// value it was given, or one an earlier change made (the book is read
	// at each event; nil: none).
	Secrets *SecretBook
}

const (
	defaultInterval = 80 * time.Millisecond
	defaultMaxLive  = 20
)

func (o Options) withDefaults() Options {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Interval <= 0 {
		o.Interval = defaultInterval
	}
	if o.MaxLive <= 0 {
		o.MaxLive = defaultMaxLive
	}
	return o
}

// New returns a Terminal view when isTerminal is true and a Plain view
// otherwise.
func New(w io.Writer, isTerminal, noColor bool) View {
	return NewView(w, isTerminal, Options{NoColor: noColor})
}

// NewView is New with full options. For a terminal whose writer is a
// file (an *os.File, or a writer giving the file's Fd), a zero Width and
// MaxLive are taken from the terminal's size.
func NewView(w io.Writer, isTerminal bool, opts Options) View {
	if !isTerminal {
		return NewPlain(w, opts)
	}
	if f, ok := w.(interface{ Fd() uintptr }); ok {
		if cols, rows, err := term.GetSize(int(f.Fd())); err == nil {
			if opts.Width <= 0 {
				opts.Width = cols
			}
			if opts.MaxLive <= 0 && rows > 3 {
				// Leave room for the status line, the "more" line and one
				// line of slack.
				opts.MaxLive = min(rows-3, defaultMaxLive)
			}
		}
	}
	return NewTerminal(w, opts)
}

// IsTerminal reports whether f is a terminal.
func IsTerminal(f *os.File) bool {
	return term.IsTerminal(int(f.Fd()))
}

var (
	_ View = (*Plain)(nil)
	_ View = (*Terminal)(nil)
)
