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

// Bot is the GitHub App server.
type Bot struct {
	cfg      Config
	log      *slog.Logger
	now      func() time.Time
	open     Opener
	roles    *roles
	rules    Rules
	maxSrc   int64
	inst     *installations
	runner   *runner.Runner
	webhooks *intake.Intake
	adopted  adoptions // namespaces moved from a repository's name to its ID
	metrics  *metrics

	driftPending sync.Map // targetKey -> true while a drift job waits
	schedule     *schedule.Scheduler
	replica      string

	watch *dispatch.Watchers // dispatched runs being watched (execution: actions)
}

// New checks the configuration (a webhook secret is required, the private
// key must parse) and starts the workers and, when Config.DriftInterval is
// positive, the drift schedule.
func New(opts Options) (*Bot, error) {
	if len(opts.Config.WebhookSecret) == 0 {
		return nil, ErrNoWebhookSecret
	}
	if opts.Open == nil {
		return nil, errors.New("new bot: no workspace opener")
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.MaxSourceBytes <= 0 {
		opts.MaxSourceBytes = 200 << 20
	}
	if opts.DedupeTTL <= 0 {
		opts.DedupeTTL = opts.Config.DedupeWindow
	}
	if opts.DedupeTTL <= 0 {
		opts.DedupeTTL = DefaultDedupeWindow
	}
	if opts.Replica == "" {
		host, _ := os.Hostname()
		opts.Replica = host + "-" + strconv.Itoa(os.Getpid())
	}
	if opts.Lease <= 0 {
		opts.Lease = opts.Config.Lease
	}
	if opts.Lease <= 0 {
		opts.Lease = DefaultLease
	}
	if opts.After == nil {
		opts.After = time.After
	}
	if opts.Config.DriftInterval < 0 {
		return nil, errors.New("new bot: negative drift interval")
	}
	apiURL := opts.Config.APIURL
	if apiURL == "" {
		apiURL = "https://api.github.com/"
	}
	m := newMetrics()
	inst, err := newInstallations(m.instrument(opts.Transport), opts.Config.AppID, opts.Config.PrivateKey, apiURL)
	if err != nil {
		return nil, fmt.Errorf("new bot: %w", err)
	}
	b := &Bot{
		cfg:     opts.Config,
		log:     opts.Logger,
		now:     opts.Now,
		open:    opts.Open,
		roles:   newRoles(opts.STS),
		rules:   opts.Rules.withDefaults(),
		maxSrc:  opts.MaxSourceBytes,
		inst:    inst,
		metrics: m,
		replica: opts.Replica,
	}
	var store *jobs.Store
	if opts.Store != nil {
		store = jobs.New(opts.Store, jobs.Options{Secret: opts.Config.WebhookSecret, Holder: opts.Replica, Lease: opts.Lease, Now: opts.Now})
	}
	b.runner = runner.New(runner.Options{
		Queue: queue.Options{
			Workers:  opts.Config.Workers,
			Capacity: opts.Config.QueueCapacity,
			Timeout:  opts.JobTimeout,
			Done:     b.metrics.job,
			Now:      opts.Now,
		},
		Store: store, Secret: opts.Config.WebhookSecret, Replica: opts.Replica,
		Resume: b.recordJob, Label: intake.Label, Resumed: b.metrics.resumed,
		Now: opts.Now, After: opts.After, Logger: opts.Logger,
	})
	go func() { _ = b.runner.Run(context.Background()) }()
	b.watch = dispatch.New(dispatch.Options{
		Timing: opts.Actions, Jobs: b.runner, StoreSetting: EnvStore, Ended: b.metrics.dispatched,
		Now: opts.Now, After: opts.After, Logger: opts.Logger,
	})
	b.webhooks = intake.New(intake.Options{
		Secret: opts.Config.WebhookSecret, Route: b.intake, Jobs: b.runner,
		Store: opts.Store, Window: opts.DedupeTTL, Replica: opts.Replica, Count: b.metrics.webhook,
		Now: opts.Now, Logger: opts.Logger,
	})
	b.metrics.watch(b.runner.Depth, b.runner.Running, b.webhooks.Draining, b.runner.Leased, b.watch.Count)
	b.schedule = schedule.New(schedule.Options{
		Interval: opts.Config.DriftInterval, Lister: inst, Check: b.driftCheck, Submit: b.runner.Submit,
		Store: opts.Store, Jobs: store, Kick: b.runner.Kick, Secret: opts.Config.WebhookSecret,
		Replica: opts.Replica, Lease: opts.Lease, Rounds: b.metrics.round, Leading: b.metrics.leading,
		Now: opts.Now, After: opts.After, Jitter: opts.Jitter, Logger: opts.Logger,
	})
	go func() { _ = b.schedule.Run(context.Background()) }()
	return b, nil
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

// Shutdown stops taking webhooks (503, and /readyz answers 503 so the load
// balancer stops sending), stops the drift schedule (a round being listed
// is abandoned; its jobs already queued still run), lets accepted jobs
// finish (applies hold locks), and returns when the drift loop and every
// worker have exited. When ctx ends first, jobs not
// started are dropped and running ones are cancelled (they save state and
// unlock), and Shutdown still waits for them. Then it stops following
// dispatched runs and, with a store, gives back the leases of the jobs it
// did not finish, so that another replica takes them over at once.
func (b *Bot) Shutdown(ctx context.Context) error {
	_ = b.webhooks.Shutdown(ctx)
	_ = b.schedule.Shutdown(context.WithoutCancel(ctx))
	b.log.Info("draining", "queued", b.runner.Depth(), "running", b.runner.Running(), "leased", b.runner.Leased(), "watching", b.watch.Count())
	err := b.runner.Drain(ctx)
	_ = b.watch.Shutdown(context.WithoutCancel(ctx))
	_ = b.runner.Shutdown(ctx)
	b.log.Info("drained")
	return err
}

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
