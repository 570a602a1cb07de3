package bot

import (
	"log/slog"
	"sync"
	"time"

	"github.com/kyku/action/internal/bot/dispatch"
	"github.com/kyku/action/internal/bot/runner"
)

// router turns events into jobs: it decides, from a delivery's payload,
// which use case it is (route), reads the repository's settings from its
// default branch, and spawns one job per project and environment the event
// concerns on the runner, serialised per target, or hands the targets to
// the repository's workflow (execution: actions, watched by the dispatch
// watchers). Its jobs call package review's rules; it implements none.
// Concurrency: safe for concurrent use; it starts no goroutine of its own.
type router struct {
	cfg  Config
	log  *slog.Logger
	now  func() time.Time
	open Opener
	// sharedRootFiles: open keeps an http root state's files where every
	// replica sees them (Options.SharedRootFiles).
	sharedRootFiles bool
	roles           *roles
	rules           Rules
	maxSrc          int64
	inst            *installations
	metrics         *metrics
	runner          *runner.Runner
	watch           *dispatch.Watchers

	adopted      adoptions // namespaces moved from a repository's name to its ID
	driftPending sync.Map  // targetKey -> true while a drift job waits
	turns        turns     // per targetKey: who uses the state (inTurn)
}
