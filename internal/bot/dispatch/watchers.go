package dispatch

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kyku/action/internal/bot/jobs"
	"github.com/kyku/action/internal/bot/lifecycle"
)

// Timing tunes the watch of dispatched runs; zero values are the defaults.
type Timing struct {
	// Poll is the time between two looks at a run (default 20s).
	Poll time.Duration
	// StartTimeout is how long a dispatched run may take to appear
	// (default 5 minutes).
	StartTimeout time.Duration
	// MaxRun is how long a run is watched before its check run is ended
	// as timed out (default 6 hours, GitHub's limit for one job).
	MaxRun time.Duration
}

func (o Timing) withDefaults() Timing {
	if o.Poll <= 0 {
		o.Poll = 20 * time.Second
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = 5 * time.Minute
	}
	if o.MaxRun <= 0 {
		o.MaxRun = 6 * time.Hour
	}
	return o
}

// Jobs is what the watchers need of the job runner: each watch is a part
// of the durable job that started it.
type Jobs interface {
	// Hold makes work started from ctx a part of ctx's durable job (its
	// lease is renewed until release): lost ends when the job's lease is
	// lost; release ends the part, interrupted when it is to be taken over.
	Hold(ctx context.Context, step string) (lost context.Context, release func(interrupted bool))
	// Record records a change of step's progress in ctx's durable job.
	Record(ctx context.Context, step string, change func(*jobs.Step))
	// Durable reports whether jobs are recorded, so that a watch stopped
	// before its run ended is taken over.
	Durable() bool
}

// Options configure Watchers.
type Options struct {
	Timing
	Jobs Jobs // required
	// StoreSetting names the setting without which a stopped watch is not
	// taken over, for its check run to say so.
	StoreSetting string
	// Ended counts what became of each dispatched run (its result).
	Ended  func(result string)
	Now    func() time.Time
	After  func(time.Duration) <-chan time.Time
	Logger *slog.Logger
}

// Watchers are the dispatched runs this replica follows: goroutines, not
// queue workers (a run takes minutes).
type Watchers struct {
	opts   Options
	ctx    context.Context // cancelled by Shutdown
	cancel context.CancelFunc
	gate   lifecycle.Gate
	n      atomic.Int64

	mu      sync.Mutex
	stopped bool
	wg      sync.WaitGroup
	nudges  map[string]chan struct{} // dispatch ID -> woken by a workflow_run delivery
}

// New returns watchers; Start follows a run (before Run too).
func New(o Options) *Watchers {
	o.Timing = o.Timing.withDefaults()
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.After == nil {
		o.After = time.After
	}
	if o.Ended == nil {
		o.Ended = func(string) {}
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Watchers{opts: o, ctx: ctx, cancel: cancel, nudges: map[string]chan struct{}{}}
}

// Run waits until Shutdown, or stops every watch when ctx ends first.
func (ws *Watchers) Run(ctx context.Context) error {
	if ok, err := ws.gate.Enter(); !ok {
		return err
	}
	defer ws.gate.Exit()
	select {
	case <-ws.gate.Stopping():
		return nil
	case <-ctx.Done():
	}
	ws.stop()
	return ctx.Err()
}

// Shutdown stops every watch (a durable job's is taken over by the replica
// that takes the job over) and waits for them, and for Run.
func (ws *Watchers) Shutdown(ctx context.Context) error {
	ws.gate.Stop()
	ws.stop()
	return ws.gate.Wait(ctx)
}

// stop cancels every watch and waits for them.
func (ws *Watchers) stop() {
	ws.mu.Lock()
	ws.stopped = true
	ws.mu.Unlock()
	ws.cancel()
	ws.wg.Wait()
}

// Start follows w in the background, as a part of the durable job ctx
// belongs to. After Shutdown, w is stopped at once (in the caller).
func (ws *Watchers) Start(ctx context.Context, w *Watch) {
	w.ws = ws
	lost, release := ws.opts.Jobs.Hold(ctx, w.Step)
	wctx, cancel := context.WithCancel(ws.ctx)
	stop := context.AfterFunc(lost, cancel)
	ch := make(chan struct{}, 1)
	ws.mu.Lock()
	ws.nudges[w.Dispatch.ID] = ch
	stopped := ws.stopped
	if !stopped {
		ws.wg.Add(1)
	}
	ws.mu.Unlock()
	ws.n.Add(1)
	watch := func() {
		defer ws.n.Add(-1)
		defer cancel()
		defer stop()
		defer func() {
			ws.mu.Lock()
			delete(ws.nudges, w.Dispatch.ID)
			ws.mu.Unlock()
		}()
		interrupted := w.run(wctx, ch)
		if interrupted && !ws.opts.Jobs.Durable() {
			// Without a store nothing takes the watch over: say so.
			w.end(wctx, w.view().abandoned(), "abandoned")
		}
		release(interrupted)
	}
	if stopped {
		watch()
		return
	}
	go func() {
		defer ws.wg.Done()
		watch()
	}()
}

// Refused ends the check run of w, whose dispatch GitHub refused (err).
func (ws *Watchers) Refused(ctx context.Context, w *Watch, err error) {
	w.ws = ws
	w.refused(ctx, err)
}

// Nudge wakes the watches whose dispatch ID title shows (a workflow_run
// delivery's display_title): they look at their run now rather than at
// the next poll. The delivery is only a hint; the run is read from the
// API. It returns how many it woke.
func (ws *Watchers) Nudge(title string) int {
	if ws == nil {
		return 0
	}
	ws.mu.Lock()
	defer ws.mu.Unlock()
	n := 0
	for id, ch := range ws.nudges {
		if strings.Contains(title, id) {
			select {
			case ch <- struct{}{}:
			default:
			}
			n++
		}
	}
	return n
}

// Count is the number of runs watched.
func (ws *Watchers) Count() int { return int(ws.n.Load()) }
