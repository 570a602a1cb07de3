package progress

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mattn/go-runewidth"

	"github.com/kyku/action/internal/plan"
)

// ANSI sequences used by the terminal view.
const (
	cursorUp  = "\x1b[1A"
	clearLine = "\x1b[2K"
	green     = "\x1b[32m"
	red       = "\x1b[31m"
	yellow    = "\x1b[33m"
	reset     = "\x1b[0m"
)

// spinner holds the frames of the running-change spinner.
var spinner = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// Symbols of finished changes, and of changes still running at Close.
const (
	symDone    = "✓"
	symFailed  = "✗"
	symSkipped = "⊘"
	symStopped = "…"
)

type changeKey struct {
	action    plan.Action
	typ, name string
}

func keyOf(e Event) changeKey { return changeKey{e.Action, e.Type, e.Name} }

// live is a change that has started and not finished.
type live struct {
	ev    Event  // the first event seen for the change
	retry *Event // the latest Retrying event, if any
}

// board is the terminal view's state: what runs, what finished since the
// last frame, and the counters. It is not safe for concurrent use; Terminal
// guards it.
type board struct {
	total    int
	running  map[changeKey]*live
	finished []Event  // finished since the last frame, not yet printed
	notices  []string // notices since the last frame, not yet printed
	done     int
	failed   int
	skipped  int
}

func newBoard(total int) *board {
	return &board{total: total, running: map[changeKey]*live{}}
}

// add records e; an event without a Time is stamped with now.
func (b *board) add(e Event, now time.Time) {
	if e.Time.IsZero() {
		e.Time = now
	}
	k := keyOf(e)
	switch e.Kind {
	case Started:
		b.running[k] = &live{ev: e}
	case Retrying:
		l := b.running[k]
		if l == nil {
			l = &live{ev: e}
			b.running[k] = l
		}
		l.retry = &e
	case Done, Failed, Skipped:
		delete(b.running, k)
		b.finished = append(b.finished, e)
		switch e.Kind {
		case Done:
			b.done++
		case Failed:
			b.failed++
		default:
			b.skipped++
		}
	}
}

// style is how a frame is drawn.
type style struct {
	color   bool
	width   int // truncate lines to width-1 columns when positive
	maxLive int // at most this many running lines when positive
}

// frame builds the next frame and consumes the finished changes: perm are
// lines printed once above the live region; live is the live region (one
// line per running change, then the status line), never empty. spin picks
// the spinner frame; final marks the frame drawn by Close.
func (b *board) frame(now time.Time, spin int, st style, final bool) (perm, liveLines []string) {
	// By finish time; ties keep arrival order (a skipped dependent arrives
	// after the failure that caused it).
	slices.SortStableFunc(b.finished, func(x, y Event) int { return x.Time.Compare(y.Time) })
	for _, e := range b.finished {
		perm = append(perm, st.finishedLine(e))
	}
	b.finished = b.finished[:0]
	perm = append(perm, b.notices...) // wider than the screen is fine: permanent lines are never erased
	b.notices = b.notices[:0]

	run := make([]*live, 0, len(b.running))
	for _, l := range b.running {
		run = append(run, l)
	}
	slices.SortFunc(run, func(x, y *live) int {
		return cmp.Or(x.ev.Time.Compare(y.ev.Time), compareKeys(keyOf(x.ev), keyOf(y.ev)))
	})
	shown := run
	if st.maxLive > 0 && len(run) > st.maxLive {
		shown = run[:st.maxLive]
	}
	sym := spinner[spin%len(spinner)]
	if final {
		sym = symStopped
	}
	for _, l := range shown {
		liveLines = append(liveLines, st.runningLine(l, sym, now))
	}
	if more := len(run) - len(shown); more > 0 {
		liveLines = append(liveLines, st.truncate(fmt.Sprintf("  and %d more running", more)))
	}
	return perm, append(liveLines, st.truncate(b.status(final)))
}

func compareKeys(x, y changeKey) int {
	return cmp.Or(cmp.Compare(x.name, y.name), cmp.Compare(x.typ, y.typ), cmp.Compare(x.action.String(), y.action.String()))
}

// status is "Applying: 12/40 done, 3 running, 1 failed".
func (b *board) status(final bool) string {
	var s strings.Builder
	if final {
		s.WriteString("Finished: ")
	} else {
		s.WriteString("Applying: ")
	}
	if b.total > 0 {
		fmt.Fprintf(&s, "%d/%d done", b.done, b.total)
	} else {
		fmt.Fprintf(&s, "%d done", b.done)
	}
	fmt.Fprintf(&s, ", %d running", len(b.running))
	if b.failed > 0 {
		fmt.Fprintf(&s, ", %d failed", b.failed)
	}
	if b.skipped > 0 {
		fmt.Fprintf(&s, ", %d skipped", b.skipped)
	}
	return s.String()
}

func (st style) finishedLine(e Event) string {
	sym, colour := symDone, green
	switch e.Kind {
	case Failed:
		sym, colour = symFailed, red
	case Skipped:
		sym, colour = symSkipped, yellow
	}
	return st.line(sym, colour, subject(e)+": "+describe(e, "failed"))
}

func (st style) runningLine(l *live, sym string, now time.Time) string {
	text := subject(l.ev) + " " + FormatElapsed(now.Sub(l.ev.Time))
	colour := ""
	if l.retry != nil {
		text += " (" + describe(*l.retry, "") + ")"
		colour = yellow
	}
	return st.line(sym, colour, text)
}

// line is a one-column symbol, optionally coloured, a space and text.
func (st style) line(sym, colour, text string) string {
	text = st.clip(oneLine(text), 2)
	if st.color && colour != "" {
		sym = colour + sym + reset
	}
	return sym + " " + text
}

func (st style) truncate(s string) string { return st.clip(oneLine(s), 0) }

// cells measures text in terminal columns: wide (East Asian, emoji)
// characters take two, combining marks none. Ambiguous-width characters
// count as one whatever the locale, so output never depends on it.
var cells = &runewidth.Condition{EastAsianWidth: false, StrictEmojiNeutral: true}

// clip shortens s so that used plus its width in columns stays below the
// terminal width, marking the cut with an ellipsis: a line that wrapped
// would break the redraw, which erases one row per line.
func (st style) clip(s string, used int) string {
	if st.width <= 0 {
		return s
	}
	limit := st.width - 1 - used
	if limit < 1 {
		return s
	}
	return cells.Truncate(s, limit, "…")
}

// redraw is the bytes that replace a live region of prevLines lines, with the
// cursor at the end of its last line, by perm (printed once, each ending in a
// newline) and the new live region (no trailing newline, so the screen never
// scrolls on its own). Erasing N lines is a carriage return and a clear of
// the current line, then N-1 times (cursor up, clear line).
func redraw(prevLines int, perm, liveLines []string) string {
	var s strings.Builder
	if prevLines > 0 {
		s.WriteString("\r" + clearLine)
		for range prevLines - 1 {
			s.WriteString(cursorUp + clearLine)
		}
	}
	for _, l := range perm {
		s.WriteString(l)
		s.WriteByte('\n')
	}
	s.WriteString(strings.Join(liveLines, "\n"))
	return s.String()
}
