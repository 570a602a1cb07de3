package cli

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/kyku/action/internal/progress"
	"github.com/kyku/action/internal/statemgr"
)

// notices prints kyku's one-line notices (waiting for a lock, an
// interrupt) on stderr, or through the live progress view while one runs:
// written beside it they would be erased by its next redraw.
type notices struct {
	mu     sync.Mutex
	stderr io.Writer
	view   progress.View // the live view, nil when none runs
}

// say prints line; fresh starts it on a fresh line on stderr (a terminal
// echoes ^C where the cursor is; the view's redraw clears that itself).
func (n *notices) say(line string, fresh bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.view != nil {
		n.view.Notice(line)
		return
	}
	if fresh {
		line = "\n" + line
	}
	fmt.Fprintln(n.stderr, line)
}

// attach routes notices through v until closeView.
func (n *notices) attach(v progress.View) {
	n.mu.Lock()
	n.view = v
	n.mu.Unlock()
}

// closeView closes the attached view, holding back notices until its final
// frame is drawn, and sends the next ones to stderr.
func (n *notices) closeView() {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.view != nil {
		n.view.Close()
		n.view = nil
	}
}

// lockWaiting is the notice of a Lock that waits for another holder: who,
// since when, and for how long it waits.
func (n *notices) lockWaiting(h statemgr.LockInfo, timeout time.Duration) {
	if h.ID == "" { // not a valid lock body: only where it is and its age
		n.say(fmt.Sprintf("kyku: the state lock %s is held by a file that is not a valid lock (last changed %s); waiting up to %s for it (--lock-timeout)…",
			h.Path, h.Created.UTC().Format(time.RFC3339), timeout), false)
		return
	}
	n.say(fmt.Sprintf("kyku: the state is locked by %s; waiting up to %s for it (--lock-timeout)…", h.Describe(), timeout), false)
}

// lockTakenOver is the notice of a Lock that took over at once a lock
// whose holder is gone: whose it was, and why.
func (n *notices) lockTakenOver(h statemgr.LockInfo, why statemgr.TakeoverReason) {
	n.say(fmt.Sprintf("kyku: took over the state lock of %s: %s.", h.Describe(), why), false)
}

// interruptNotice is printed on the first Ctrl-C (SIGINT or SIGTERM).
const interruptNotice = "kyku: interrupted: finishing running changes and saving state (press Ctrl-C again to exit now)"

// watchInterrupt prints the interrupt notice when interrupted closes,
// until stop is called; stop waits for it, and prints a notice whose
// interrupt came just before.
func (n *notices) watchInterrupt(interrupted <-chan struct{}) (stop func()) {
	if interrupted == nil {
		return func() {}
	}
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		select {
		case <-interrupted:
		case <-quit:
			select {
			case <-interrupted:
			default:
				return
			}
		}
		n.say(interruptNotice, true)
	}()
	return func() {
		close(quit)
		<-done
	}
}

// withNotices wires the notices into ctx (a waiting Lock says so, and one
// that takes over a lock left behind).
func (n *notices) withNotices(ctx context.Context) context.Context {
	return statemgr.WithLockTakenOver(statemgr.WithLockWaiting(ctx, n.lockWaiting), n.lockTakenOver)
}
