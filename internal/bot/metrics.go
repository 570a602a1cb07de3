package bot

import (
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
)

// jobBuckets are the job duration histogram's upper bounds, seconds.
var jobBuckets = []float64{0.05, 0.25, 1, 5, 15, 60, 300, 900, 1800}

// apiBuckets are the GitHub request duration histogram's upper bounds,
// seconds.
var apiBuckets = []float64{0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}

// roundResults are the results of a drift round; each is exposed from the
// start (at 0), so a dashboard sees the series before the first round.
var roundResults = []string{"ok", "partial", "error", "cancelled"}

// metrics are the bot's Prometheus metrics, in a registry of its own (never
// the global one, so two Bots in one process do not collide), with the Go
// runtime and process collectors. The "Metrics" section of docs/bot.md lists
// every kyku_bot_* family; a test keeps the two in step.
type metrics struct {
	reg         *prometheus.Registry
	webhooks    *prometheus.CounterVec   // event, result
	jobs        *prometheus.CounterVec   // kind, outcome
	requeues    *prometheus.CounterVec   // kind
	jobSeconds  *prometheus.HistogramVec // kind
	rounds      *prometheus.CounterVec   // result
	rate        *prometheus.GaugeVec     // installation
	httpSeconds *prometheus.HistogramVec // method, code
	taken       *prometheus.CounterVec   // result: jobs left behind, taken here
	dispatches  *prometheus.CounterVec   // result: dispatched workflow runs
	leader      prometheus.Gauge         // 1 while leading the drift schedule
	resumedN    atomic.Int64             // taken_over, for /healthz
}

// requeuedKinds are the kinds of the jobs that may be requeued: a pull
// request's (pullJob).
var requeuedKinds = []string{"plan", "apply", "merge-apply"}

// takenResults are the results of taking a job left behind: taken over
// from a worker that stopped renewing its lease, offered work (a drift
// round's) taken, a record refused (unreadable or unsigned), a job given
// up after too many takeovers.
var takenResults = []string{"taken_over", "offered", "refused", "given_up"}

// dispatchResults are what became of a dispatched workflow run: refused
// by GitHub, never started, or the run's own conclusion.
var dispatchResults = []string{"refused", "not_started", "success", "failure", "cancelled", "timed_out", "other", "abandoned"}

func newMetrics() *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		webhooks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kyku_bot_webhooks_total", Help: "Webhook deliveries by event and result.",
		}, []string{"event", "result"}),
		jobs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kyku_bot_jobs_total", Help: "Finished jobs by kind and outcome.",
		}, []string{"kind", "outcome"}),
		requeues: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kyku_bot_jobs_requeued_total", Help: "Jobs queued again behind their project/environment's jobs (a state without leases), by kind; each is counted in kyku_bot_jobs_total when it finishes.",
		}, []string{"kind"}),
		jobSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "kyku_bot_job_duration_seconds", Help: "Job durations by kind, a requeued job's runs added up (jobs dropped before they ran are not observed).",
			Buckets: jobBuckets,
		}, []string{"kind"}),
		rounds: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kyku_bot_drift_rounds_total", Help: "Drift rounds (listing installations and queueing their repositories) by result.",
		}, []string{"result"}),
		rate: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "kyku_bot_github_rate_limit_remaining", Help: "GitHub API requests left in the rate-limit window, per installation (last seen).",
		}, []string{"installation"}),
		httpSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "kyku_bot_github_request_duration_seconds",
			Help:    "GitHub API requests (each attempt, token exchanges included) until the response headers, by method and status code.",
			Buckets: apiBuckets,
		}, []string{"method", "code"}),
	}
	m.taken = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "kyku_bot_jobs_resumed_total", Help: "Jobs another replica left (its worker stopped renewing the lease, or offered work), taken here, by result.",
	}, []string{"result"})
	m.dispatches = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "kyku_bot_dispatches_total", Help: "Workflow runs dispatched (execution: actions) and watched to their end, by result.",
	}, []string{"result"})
	m.leader = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "kyku_bot_drift_leader", Help: "1 while this replica leads the drift schedule.",
	})
	m.reg.MustRegister(m.webhooks, m.jobs, m.requeues, m.jobSeconds, m.rounds, m.rate, m.httpSeconds, m.taken, m.dispatches, m.leader,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	for _, r := range roundResults {
		m.rounds.WithLabelValues(r)
	}
	for _, k := range requeuedKinds {
		m.requeues.WithLabelValues(k)
	}
	for _, r := range takenResults {
		m.taken.WithLabelValues(r)
	}
	for _, r := range dispatchResults {
		m.dispatches.WithLabelValues(r)
	}
	return m
}

// watch exposes the gauges read at scrape time: the queue's depth and
// running jobs, whether the bot drains, the durable jobs it holds and the
// dispatched runs it watches.
func (m *metrics) watch(depth, running func() int, draining func() bool, leased, watching func() int) {
	gauge := func(name, help string, f func() float64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, f)
	}
	m.reg.MustRegister(
		gauge("kyku_bot_queue_depth", "Jobs accepted and not started.", func() float64 { return float64(depth()) }),
		gauge("kyku_bot_jobs_running", "Jobs running.", func() float64 { return float64(running()) }),
		gauge("kyku_bot_draining", "1 while the bot drains before exiting.", func() float64 {
			if draining() {
				return 1
			}
			return 0
		}),
		gauge("kyku_bot_jobs_leased", "Durable jobs (recorded in the store) this replica holds the lease of: queued, running or watching a dispatched run.", func() float64 { return float64(leased()) }),
		gauge("kyku_bot_dispatches_watched", "Dispatched workflow runs this replica watches.", func() float64 { return float64(watching()) }),
	)
}

// resumed counts a job left behind and taken here.
func (m *metrics) resumed(result string) {
	m.taken.WithLabelValues(result).Inc()
	if result == "taken_over" {
		m.resumedN.Add(1)
	}
}

// dispatched counts what became of a dispatched run.
func (m *metrics) dispatched(result string) {
	m.dispatches.WithLabelValues(result).Inc()
}

// leading records whether this replica leads the drift schedule.
func (m *metrics) leading(on bool) {
	if on {
		m.leader.Set(1)
		return
	}
	m.leader.Set(0)
}

// handler serves the registry in the Prometheus exposition formats.
func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// instrument times every request the GitHub clients send through base
// (below authentication and retries, so each attempt and each installation
// token exchange counts once). A request that got no response is not
// observed; its error fails the job.
func (m *metrics) instrument(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return promhttp.InstrumentRoundTripperDuration(m.httpSeconds, base)
}

// webhook counts a delivery by event and result.
func (m *metrics) webhook(event, result string) {
	m.webhooks.WithLabelValues(event, result).Inc()
}

// job counts a finished job and observes its duration, unless it was
// dropped before it ran.
func (m *metrics) job(kind, outcome string, d time.Duration) {
	m.jobs.WithLabelValues(kind, outcome).Inc()
	if outcome == "dropped" {
		return
	}
	m.jobSeconds.WithLabelValues(kind).Observe(d.Seconds())
}

// requeued counts a job queued again (not finished: job counts it when it is).
func (m *metrics) requeued(kind string) {
	m.requeues.WithLabelValues(kind).Inc()
}

// round counts a drift round by result.
func (m *metrics) round(result string) {
	m.rounds.WithLabelValues(result).Inc()
}

// rateLimit records an installation's X-RateLimit-Remaining (negative:
// none seen yet, not recorded).
func (m *metrics) rateLimit(installation int64, remaining int) {
	if remaining < 0 {
		return
	}
	m.rate.WithLabelValues(strconv.FormatInt(installation, 10)).Set(float64(remaining))
}

// gaugeValue reads a gauge's value.
func gaugeValue(g prometheus.Gauge) float64 {
	var m dto.Metric
	if err := g.Write(&m); err != nil {
		return 0
	}
	return m.GetGauge().GetValue()
}
