// Package progress owns apply progress: the events the engine emits while it
// applies, and two views of them: a terminal view that redraws in place and a
// plain view that prints one line per event (CI logs). Views are safe for
// concurrent use; events may arrive from many goroutines.
//
// It owns Secrets too, how every front door scrubs the texts a run must not
// show (sensitive values quoted by an error) from what it prints: the views
// first, being where provider errors are shown as they happen, and the
// lowest package the CLI, the Action and the bot all reach.
package progress

import (
	"time"

	"github.com/kyku/action/internal/plan"
)

// Kind is what happened to a change.
type Kind int

const (
	Started  Kind = iota // a change began
	Retrying             // a provider call failed transiently and will be retried
	Done                 // a change finished
	Failed               // a change failed
	Skipped              // a change was not started because a dependency failed or the run was interrupted
)

func (k Kind) String() string {
	switch k {
	case Started:
		return "started"
	case Retrying:
		return "retrying"
	case Done:
		return "done"
	case Failed:
		return "failed"
	case Skipped:
		return "skipped"
	}
	return "unknown"
}

// Event is one step of one change.
type Event struct {
	Kind    Kind
	Action  plan.Action // what the change does (create, update, replace, destroy, …)
	Type    string      // resource type
	Name    string      // Kyku name
	ID      string      // provider ID, when known
	Err     error       // Failed, Retrying: why; Skipped: the cause
	Attempt int         // Retrying: the attempt that failed (1-based)
	Time    time.Time
	Elapsed time.Duration // Done, Failed: since Started
}

// Hook receives events. Implementations must be safe for concurrent use.
type Hook interface {
	Event(Event)
}

// Discard is a Hook that ignores every event.
type Discard struct{}

func (Discard) Event(Event) {}
