package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"

	"github.com/kyku/action/internal/bot/dispatch"
	"github.com/kyku/action/internal/bot/intake"
	"github.com/kyku/action/internal/bot/jobs"
	"github.com/kyku/action/internal/bot/queue"
	"github.com/kyku/action/internal/bot/runner"
	"github.com/kyku/action/internal/bot/schedule"
	"github.com/kyku/action/internal/review"
)

// MaxWebhookBytes caps a webhook body (GitHub's own cap is 25 MB).
const MaxWebhookBytes = intake.MaxBody

// DefaultLease is how long a job's lease, and the drift schedule's, lasts
// unrenewed by default.
const DefaultLease = runner.DefaultLease

// DefaultDedupeWindow is how long a delivery is remembered by default: the
// three days GitHub lets a delivery be redelivered.
const DefaultDedupeWindow = intake.DefaultWindow

// Rules are the review use cases the bot calls; the zero value means
// package review's (tests may count or replace them).
type Rules struct {
	Plan        func(ctx context.Context, d review.Deps, req review.PlanRequest) (*review.PlanOutcome, error)
	Comment     func(ctx context.Context, d review.Deps, s review.Settings, ev review.CommentEvent) (*review.CommentOutcome, error)
	ApplyMerged func(ctx context.Context, d review.Deps, s review.Settings, sha, pusher string) (*review.ApplyOutcome, error)
	Drift       func(ctx context.Context, d review.Deps, req review.DriftRequest) (*review.DriftOutcome, error)
}

func (r Rules) withDefaults() Rules {
	if r.Plan == nil {
		r.Plan = review.Plan
	}
	if r.Comment == nil {
		r.Comment = review.Comment
	}
	if r.ApplyMerged == nil {
		r.ApplyMerged = review.ApplyMerged
	}
	if r.Drift == nil {
		r.Drift = review.Drift
	}
	return r
}

// Options configure a Bot.
type Options struct {
	Config Config
	// Open opens a project's engine and backend from its trusted config,
	// confined to its repository (required). cmd/bot's refuses local
	// state: the bot's disk holds nothing that matters.
	Open Opener
	// SharedRootFiles: Open keeps Kyku's additions to a Terraform root's
	// http state (saved plans, backups, the change journal) where every
	// replica and restart sees them. cmd/bot's keeps them on its own disk
	// and leaves this false: tenancy.ConfineTerraform then refuses a
	// root's http backend at its block.
	SharedRootFiles bool
	// STS assumes the IAM roles the policy names (Config.Policy); nil
	// refuses every bucket that names a role.
	STS    stscreds.AssumeRoleAPIClient
	Logger *slog.Logger
	Now    func() time.Time
	// Transport is the base transport for GitHub calls (default
	// http.DefaultTransport); authentication and retries wrap it.
	Transport http.RoundTripper
	Rules     Rules
	// MaxSourceBytes caps a source tarball's files (default 200 MB).
	MaxSourceBytes int64
	// JobTimeout bounds one job (default 30 minutes).
	JobTimeout time.Duration
	// DedupeTTL is the dedupe window: how long a delivery's ID and signed
	// body are remembered (default DefaultDedupeWindow; in memory, at most
	// 50,000 of each).
	DedupeTTL time.Duration
	// Store keeps what the replicas share in a backend's conditional
	// writes (KYKU_BOT_STORE): the deliveries taken, the jobs accepted and
	// not finished (package jobs), the drift schedule and its leader's
	// lease. nil: deliveries in memory, per replica; jobs lost with the
	// process; every replica its own drift schedule.
	Store jobs.Objects
	// Lease is how long a job's or the schedule's lease lasts unrenewed
	// (default Config.Lease, else DefaultLease): a job whose worker died
	// is taken over, and a dead leader's schedule, after at most that.
	Lease time.Duration
	// Replica names this process in the store's records (default
	// "<hostname>-<pid>").
	Replica string
	// After waits between drift rounds, lease renewals, looks for jobs
	// left behind and polls of dispatched runs (default time.After); tests
	// pass a clock of their own.
	After func(d time.Duration) <-chan time.Time
	// Actions tunes the watch of dispatched workflow runs (execution:
	// actions); zero values are the defaults.
	Actions ActionsOptions
	// Jitter returns a random duration in [0, n) (default math/rand/v2's
	// N; 0 when n <= 0).
	Jitter func(n time.Duration) time.Duration
}

// Bot is the GitHub App server: it wires its parts — the webhook intake,
// the job runner, the drift scheduler and the dispatch watchers — to the
// router, which turns events into jobs, and starts and stops them.
type Bot struct {
	log      *slog.Logger
	metrics  *metrics
	router   *router
	webhooks *intake.Intake
	runner   *runner.Runner
	schedule *schedule.Scheduler
	watch    *dispatch.Watchers // dispatched runs being watched (execution: actions)
}

// New checks the configuration (a webhook secret is required, the private
// key must parse) and wires the parts; Run starts them.
func New(opts Options) (*Bot, error) {
	if len(opts.Config.WebhookSecret) == 0 {
		return nil, ErrNoWebhookSecret
	}
	if opts.Open == nil {
		return nil, errors.New("new bot: no workspace opener")
	}
	if opts.Config.DriftInterval < 0 {
		return nil, errors.New("new bot: negative drift interval")
	}
	opts = opts.withDefaults()
	m := newMetrics()
	inst, err := newInstallations(m.instrument(opts.Transport), opts.Config.AppID, opts.Config.PrivateKey, opts.Config.APIURL)
	if err != nil {
		return nil, fmt.Errorf("new bot: %w", err)
	}
	var store *jobs.Store
	if opts.Store != nil {
		store = jobs.New(opts.Store, jobs.Options{Secret: opts.Config.WebhookSecret, Holder: opts.Replica, Lease: opts.Lease, Now: opts.Now})
	}
	rt := &router{
		cfg: opts.Config, log: opts.Logger, now: opts.Now, open: opts.Open, roles: newRoles(opts.STS),
		rules: opts.Rules.withDefaults(), maxSrc: opts.MaxSourceBytes, inst: inst, metrics: m, sharedRootFiles: opts.SharedRootFiles,
	}
	b := &Bot{log: opts.Logger, metrics: m, router: rt}
	b.runner = runner.New(runner.Options{
		Queue: queue.Options{
			Workers:  opts.Config.Workers,
			Capacity: opts.Config.QueueCapacity,
			Timeout:  opts.JobTimeout,
			Done:     m.job,
			Requeued: m.requeued,
			Now:      opts.Now,
		},
		Store: store, Secret: opts.Config.WebhookSecret, Replica: opts.Replica,
		Resume: rt.resume, Label: intake.Label, Resumed: m.resumed,
		Now: opts.Now, After: opts.After, Logger: opts.Logger,
	})
	b.watch = dispatch.New(dispatch.Options{
		Timing: opts.Actions, Jobs: b.runner, StoreSetting: EnvStore, Ended: m.dispatched,
		Now: opts.Now, After: opts.After, Logger: opts.Logger,
	})
	rt.runner, rt.watch = b.runner, b.watch
	b.webhooks = intake.New(intake.Options{
		Secret: opts.Config.WebhookSecret, Route: rt.route, Jobs: b.runner,
		Store: opts.Store, Window: opts.DedupeTTL, Replica: opts.Replica, Count: m.webhook,
		Now: opts.Now, Logger: opts.Logger,
	})
	b.schedule = schedule.New(schedule.Options{
		Interval: opts.Config.DriftInterval, Lister: inst, Check: rt.driftCheck, Submit: b.runner.Submit,
		Store: opts.Store, Jobs: store, Kick: b.runner.Kick, Secret: opts.Config.WebhookSecret,
		Replica: opts.Replica, Lease: opts.Lease, Rounds: m.round, Leading: m.leading,
		Now: opts.Now, After: opts.After, Jitter: opts.Jitter, Logger: opts.Logger,
	})
	m.watch(b.runner.Depth, b.runner.Running, b.webhooks.Draining, b.runner.Leased, b.watch.Count)
	return b, nil
}

func (o Options) withDefaults() Options {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.MaxSourceBytes <= 0 {
		o.MaxSourceBytes = 200 << 20
	}
	if o.DedupeTTL <= 0 {
		o.DedupeTTL = o.Config.DedupeWindow
	}
	if o.DedupeTTL <= 0 {
		o.DedupeTTL = DefaultDedupeWindow
	}
	if o.Replica == "" {
		host, _ := os.Hostname()
		o.Replica = host + "-" + strconv.Itoa(os.Getpid())
	}
	if o.Lease <= 0 {
		o.Lease = o.Config.Lease
	}
	if o.Lease <= 0 {
		o.Lease = DefaultLease
	}
	if o.After == nil {
		o.After = time.After
	}
	if o.Config.APIURL == "" {
		o.Config.APIURL = "https://api.github.com/"
	}
	return o
}

// part is what the Bot starts and stops (package lifecycle's contract).
type part interface {
	Run(ctx context.Context) error
	Shutdown(ctx context.Context) error
}

var (
	_ part = (*intake.Intake)(nil)
	_ part = (*runner.Runner)(nil)
	_ part = (*schedule.Scheduler)(nil)
	_ part = (*dispatch.Watchers)(nil)
)

// Run runs the parts until Shutdown, or until ctx ends (then each stops
// at once: jobs not started are dropped, running ones cancelled, leases
// given back). It returns when every part has stopped, with their errors
// (nil after Shutdown).
func (b *Bot) Run(ctx context.Context) error {
	parts := []part{b.webhooks, b.runner, b.schedule, b.watch}
	errs := make([]error, len(parts))
	var wg sync.WaitGroup
	for i, p := range parts {
		wg.Go(func() { errs[i] = p.Run(ctx) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Handler serves POST /webhook, GET /healthz, GET /readyz and GET /metrics.
func (b *Bot) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("POST /webhook", b.webhooks)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		intake.WriteText(w, http.StatusOK, "ok\n"+b.status())
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		if b.webhooks.Draining() {
			intake.WriteText(w, http.StatusServiceUnavailable, "draining\n"+b.status())
			return
		}
		intake.WriteText(w, http.StatusOK, "ready\n"+b.status())
	})
	mux.Handle("GET /metrics", b.metrics.handler())
	return mux
}

// Shutdown stops the parts in turn: the intake stops taking webhooks (503,
// and /readyz answers 503 so the load balancer stops sending); the drift
// scheduler stops (a round being listed is abandoned; its jobs already
// queued still run); the runner lets accepted jobs finish (applies hold
// locks) — when ctx ends first, jobs not started are dropped and running
// ones are cancelled (they save state and unlock), and Shutdown still
// waits for them; then the watchers stop following dispatched runs, and,
// with a store, the runner gives back the leases of the jobs it did not
// finish, so that another replica takes them over at once. Run returns.
func (b *Bot) Shutdown(ctx context.Context) error {
	_ = b.webhooks.Shutdown(ctx)
	_ = b.schedule.Shutdown(context.WithoutCancel(ctx)) // a round being listed stops at once
	b.log.Info("draining", "queued", b.runner.Depth(), "running", b.runner.Running(), "leased", b.runner.Leased(), "watching", b.watch.Count())
	err := b.runner.Drain(ctx)
	_ = b.watch.Shutdown(context.WithoutCancel(ctx)) // each watch stops at once
	_ = b.runner.Shutdown(ctx)
	b.log.Info("drained")
	return err
}

// DriftRound lists the App's installations (App JWT) and each one's
// repositories (installation token), and queues a drift check of every
// repository that is not archived: a job reads its settings and projects
// from the default branch and fans out one drift job per project and
// environment, on that environment's key (so a drift check never overlaps
// a plan or apply of it). It returns once the jobs are queued, not run. A
// repository whose previous check is still queued is not queued twice; one
// installation that cannot be listed does not stop the others.
func (b *Bot) DriftRound(ctx context.Context) error { return b.schedule.Round(ctx) }

// status is what /healthz and /readyz show after their first line, one
// "name value" a line: jobs queued and running here, durable jobs whose
// lease this replica holds, jobs it took over since it started, dispatched
// runs it follows, whether it leads the drift schedule, and whether jobs
// are recorded in a store at all.
func (b *Bot) status() string {
	leading := "no"
	if b.metrics.leader != nil && gaugeValue(b.metrics.leader) == 1 {
		leading = "yes"
	}
	store := "none (jobs are lost with the process; every replica runs its own drift schedule)"
	if b.runner.Durable() {
		store = "yes"
	}
	return fmt.Sprintf("queued %d\nrunning %d\nleased %d\nresumed %d\ndispatched %d\nleading %s\nstore %s",
		b.runner.Depth(), b.runner.Running(), b.runner.Leased(), b.metrics.resumedN.Load(), b.watch.Count(), leading, store)
}
