package cli

import (
	"errors"
	"io"
	"sync"
	"syscall"
)

// closedStdout stops the run when its reader goes away (kyku plan | head
// -3): the first write that fails with EPIPE cancels the command's
// context, as a first Ctrl-C does, so that the command returns through
// its deferred cleanup (providers stopped, lock released, state saved by
// an apply); Run then says why it stopped, on stderr. The process must
// not die of SIGPIPE for that: cmd/kyku asks for the signal (os/signal),
// which makes such a write fail with EPIPE instead.
type closedStdout struct {
	w      io.Writer
	stop   func()
	once   sync.Once
	closed chan struct{}
}

func newClosedStdout(w io.Writer, stop func()) *closedStdout {
	return &closedStdout{w: w, stop: stop, closed: make(chan struct{})}
}

func (c *closedStdout) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	if errors.Is(err, syscall.EPIPE) {
		c.once.Do(func() {
			close(c.closed)
			c.stop()
		})
	}
	return n, err
}

// Fd is the descriptor of the file written to, when it is one (the
// progress view reads a terminal's size from it); otherwise one that is
// none.
func (c *closedStdout) Fd() uintptr {
	if f, ok := c.w.(interface{ Fd() uintptr }); ok {
		return f.Fd()
	}
	return ^uintptr(0)
}

// broken reports whether a write failed because the reader went away.
func (c *closedStdout) broken() bool {
	select {
	case <-c.closed:
		return true
	default:
		return false
	}
}

// closedStdoutNotice is Run's last word after stdout was closed.
const closedStdoutNotice = "kyku: stopped: standard output was closed (broken pipe); as on Ctrl-C, nothing more started, " +
	"what had started finished and was saved, and the lock was released"
