package schedule

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/kyku/action/internal/bot/jobs"
	"github.com/kyku/action/internal/bot/lifecycle"
	"github.com/kyku/action/internal/bot/queue"
	"github.com/kyku/action/internal/claim"
	"github.com/kyku/action/internal/github"
)

// Lister lists the App's installations (its JWT) and the repositories one
// can access (its token).
type Lister interface {
	Installations(ctx context.Context) ([]github.Installation, error)
	Repos(ctx context.Context, installation int64) ([]github.RepoRef, error)
}

// Repo is one repository a round checks: the body of an offered check.
type Repo struct {
	Round         string    `json:"round"`
	Installation  int64     `json:"installation"`
	ID            int64     `json:"id"`
	Owner         string    `json:"owner"`
	Name          string    `json:"name"`
	DefaultBranch string    `json:"defaultBranch"`
	Created       time.Time `json:"created,omitzero"`
}

// EventOffered is the event of an offered drift check in a job record: a
// name GitHub never sends.
const EventOffered = "kyku/drift-schedule"

// DecodeOffer reads the repository of an offered check's body.
func DecodeOffer(body []byte) (Repo, error) {
	var r Repo
	if err := json.Unmarshal(body, &r); err != nil {
		return Repo{}, fmt.Errorf("decode scheduled drift check: %w", err)
	}
	if r.Installation == 0 || r.ID <= 0 || r.Owner == "" || r.Name == "" || r.DefaultBranch == "" {
		return Repo{}, errors.New("decode scheduled drift check: no repository")
	}
	return r, nil
}

// Options configure a Scheduler.
type Options struct {
	// Interval is the time between rounds, plus up to a tenth of it at
	// random; the first round comes at a random time within one interval.
	// 0: no round is ever started here.
	Interval time.Duration
	Lister   Lister
	// Check is the routing job of one repository's drift check.
	Check func(Repo) queue.Job
	// Submit queues a check (without a store): queue.ErrFull leaves the
	// repository for the next round.
	Submit func(queue.Job) error
	// Store, when set, holds the one schedule of every replica, its
	// leader's lease, and (Jobs) the checks offered; Kick has this
	// replica take offered checks at once.
	Store   jobs.Objects
	Jobs    *jobs.Store
	Kick    func()
	Secret  []byte        // signs the offered checks, as GitHub signs deliveries
	Replica string        // this replica, in the lease and the record
	Lease   time.Duration // how long the leader's lease lasts unrenewed
	// Rounds counts each round by result (ok, partial, error, cancelled);
	// Leading reports whether this replica leads.
	Rounds  func(result string)
	Leading func(bool)
	Now     func() time.Time
	After   func(time.Duration) <-chan time.Time
	// Jitter returns a random duration in [0, n) (default math/rand/v2's
	// N; 0 when n <= 0).
	Jitter func(n time.Duration) time.Duration
	Logger *slog.Logger
}

// Scheduler runs the drift schedule.
type Scheduler struct {
	opts   Options
	log    *slog.Logger
	claims *claim.Store // with a store
	gate   lifecycle.Gate
}

// New returns a scheduler; Run starts the schedule.
func New(o Options) *Scheduler {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.After == nil {
		o.After = time.After
	}
	if o.Jitter == nil {
		o.Jitter = func(n time.Duration) time.Duration {
			if n <= 0 {
				return 0
			}
			return rand.N(n)
		}
	}
	if o.Rounds == nil {
		o.Rounds = func(string) {}
	}
	if o.Leading == nil {
		o.Leading = func(bool) {}
	}
	if o.Lease <= 0 {
		o.Lease = time.Minute
	}
	if o.Kick == nil {
		o.Kick = func() {}
	}
	s := &Scheduler{opts: o, log: o.Logger}
	if o.Store != nil {
		s.claims = claim.New(o.Store, claim.Options{Now: o.Now})
	}
	return s
}

// Run runs the schedule until Shutdown, or until ctx ends: alone without a
// store, led by one replica at a time with one; nothing when the interval
// is 0.
func (s *Scheduler) Run(ctx context.Context) error {
	if ok, err := s.gate.Enter(); !ok {
		return err
	}
	defer s.gate.Exit()
	lctx, stop := s.gate.Bind(ctx)
	defer stop()
	switch {
	case s.opts.Interval <= 0:
		<-lctx.Done()
	case s.opts.Store != nil:
		s.lead(lctx)
	default:
		s.loop(lctx)
	}
	return ctx.Err()
}

// Shutdown stops the schedule (a round being listed is abandoned; its
// checks already queued still run) and waits for Run to return.
func (s *Scheduler) Shutdown(ctx context.Context) error {
	s.gate.Stop()
	return s.gate.Wait(ctx)
}

// loop runs a round after a random wait within one interval, then every
// interval plus up to a tenth of it, until ctx ends.
func (s *Scheduler) loop(ctx context.Context) {
	wait := s.opts.Jitter(s.opts.Interval)
	for s.sleep(ctx, wait) {
		if err := s.Round(ctx); err != nil && ctx.Err() == nil {
			s.log.Error("drift round failed", "error", err.Error())
		}
		wait = s.opts.Interval + s.opts.Jitter(s.opts.Interval/10)
	}
}

// sleep waits d on the injected clock (Options.After); false when ctx
// ended first.
func (s *Scheduler) sleep(ctx context.Context, d time.Duration) bool {
	select {
	case <-ctx.Done():
		return false
	case <-s.opts.After(d):
	}
	return ctx.Err() == nil
}

// Round lists the App's installations (App JWT) and each one's
// repositories (installation token), and queues a drift check of every
// repository that is not archived: a job reads its settings and projects
// from the default branch and fans out one drift job per project and
// environment, on that environment's key (so a drift check never overlaps
// a plan or apply of it). It returns once the jobs are queued, not run. A
// repository whose previous check is still queued is not queued twice; one
// installation that cannot be listed does not stop the others.
func (s *Scheduler) Round(ctx context.Context) error {
	insts, err := s.opts.Lister.Installations(ctx)
	if err != nil {
		s.opts.Rounds("error")
		return fmt.Errorf("drift round: %w", err)
	}
	var errs []error
	repos, queued, full := 0, 0, 0
	for _, in := range insts {
		refs, err := s.opts.Lister.Repos(ctx, in.ID)
		if err != nil {
			if ctx.Err() != nil {
				s.opts.Rounds("cancelled")
				return fmt.Errorf("drift round: %w", ctx.Err())
			}
			errs = append(errs, err)
			continue
		}
		for _, r := range refs {
			if ctx.Err() != nil { // Shutdown: queue nothing more
				s.opts.Rounds("cancelled")
				return fmt.Errorf("drift round: %w", ctx.Err())
			}
			if r.Archived || r.DefaultBranch == "" {
				continue
			}
			repos++
			repo := Repo{Installation: in.ID, ID: r.ID, Owner: r.Owner, Name: r.Name, DefaultBranch: r.DefaultBranch, Created: r.Created}
			switch err := s.opts.Submit(s.opts.Check(repo)); {
			case errors.Is(err, queue.ErrFull):
				full++
			case err != nil:
				s.opts.Rounds("cancelled")
				return fmt.Errorf("drift round: %w", err)
			default:
				queued++
			}
		}
	}
	s.log.Info("drift round queued", "installations", len(insts), "repositories", repos, "queued", queued, "queue_full", full)
	if full > 0 {
		errs = append(errs, fmt.Errorf("queue full: %d repositories left for the next round", full))
	}
	if err := errors.Join(errs...); err != nil {
		s.opts.Rounds("partial")
		return fmt.Errorf("drift round: %w", err)
	}
	s.opts.Rounds("ok")
	return nil
}
