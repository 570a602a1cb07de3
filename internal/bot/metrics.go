package bot

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// durationBuckets are the job duration histogram's upper bounds, seconds.
var durationBuckets = []float64{0.05, 0.25, 1, 5, 15, 60, 300, 900, 1800}

// metrics holds the counters /metrics exposes in the Prometheus text
// format (version 0.0.4).
type metrics struct {
	mu        sync.Mutex
	webhooks  map[[2]string]int64 // event, result
	jobs      map[[2]string]int64 // kind, outcome
	durations map[string]*histogram
	rate      map[int64]int    // installation -> X-RateLimit-Remaining
	rounds    map[string]int64 // drift rounds by result
}

type histogram struct {
	counts []int64 // per bucket, not cumulative
	sum    float64
	count  int64
}

func newMetrics() *metrics {
	return &metrics{
		webhooks:  map[[2]string]int64{},
		jobs:      map[[2]string]int64{},
		durations: map[string]*histogram{},
		rate:      map[int64]int{},
		rounds:    map[string]int64{},
	}
}

func (m *metrics) webhook(event, result string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.webhooks[[2]string{event, result}]++
}

func (m *metrics) job(kind, outcome string, d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.jobs[[2]string{kind, outcome}]++
	if outcome == "dropped" {
		return // never ran
	}
	h := m.durations[kind]
	if h == nil {
		h = &histogram{counts: make([]int64, len(durationBuckets))}
		m.durations[kind] = h
	}
	s := d.Seconds()
	for i, b := range durationBuckets {
		if s <= b {
			h.counts[i]++
			break
		}
	}
	h.sum += s
	h.count++
}

func (m *metrics) round(result string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.rounds[result]++
}

func (m *metrics) rateLimit(installation int64, remaining int) {
	if remaining < 0 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.rate[installation] = remaining
}

// jobCount is how many jobs of kind ended with outcome.
func (m *metrics) jobCount(kind, outcome string) int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.jobs[[2]string{kind, outcome}]
}

// write renders the exposition; depth and running are read by the caller.
func (m *metrics) write(w io.Writer, depth, running int, draining bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var b strings.Builder
	gauge := func(name, help string, v float64) {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s gauge\n%s %s\n", name, help, name, name, num(v))
	}
	gauge("kyku_bot_queue_depth", "Jobs accepted and not started.", float64(depth))
	gauge("kyku_bot_jobs_running", "Jobs running.", float64(running))
	gauge("kyku_bot_draining", "1 while the bot drains before exiting.", float64(boolInt(draining)))

	pairs := func(name, help, l1, l2 string, vals map[[2]string]int64) {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s counter\n", name, help, name)
		keys := slices.SortedFunc(maps.Keys(vals), func(a, c [2]string) int {
			return strings.Compare(a[0]+"\x00"+a[1], c[0]+"\x00"+c[1])
		})
		for _, k := range keys {
			fmt.Fprintf(&b, "%s{%s=%q,%s=%q} %d\n", name, l1, k[0], l2, k[1], vals[k])
		}
	}
	pairs("kyku_bot_webhooks_total", "Webhook deliveries by event and result.", "event", "result", m.webhooks)
	pairs("kyku_bot_jobs_total", "Finished jobs by kind and outcome.", "kind", "outcome", m.jobs)

	const dname = "kyku_bot_drift_rounds_total"
	fmt.Fprintf(&b, "# HELP %s Drift rounds (listing installations and queueing their repositories) by result.\n# TYPE %s counter\n", dname, dname)
	for _, r := range slices.Sorted(maps.Keys(m.rounds)) {
		fmt.Fprintf(&b, "%s{result=%q} %d\n", dname, r, m.rounds[r])
	}

	const hname = "kyku_bot_job_duration_seconds"
	fmt.Fprintf(&b, "# HELP %s Job durations by kind.\n# TYPE %s histogram\n", hname, hname)
	for _, kind := range slices.Sorted(maps.Keys(m.durations)) {
		h := m.durations[kind]
		var cum int64
		for i, le := range durationBuckets {
			cum += h.counts[i]
			fmt.Fprintf(&b, "%s_bucket{kind=%q,le=%q} %d\n", hname, kind, num(le), cum)
		}
		fmt.Fprintf(&b, "%s_bucket{kind=%q,le=\"+Inf\"} %d\n", hname, kind, h.count)
		fmt.Fprintf(&b, "%s_sum{kind=%q} %s\n%s_count{kind=%q} %d\n", hname, kind, num(h.sum), hname, kind, h.count)
	}

	const rname = "kyku_bot_github_rate_limit_remaining"
	fmt.Fprintf(&b, "# HELP %s GitHub API requests left in the rate-limit window, per installation (last seen).\n# TYPE %s gauge\n", rname, rname)
	for _, id := range slices.Sorted(maps.Keys(m.rate)) {
		fmt.Fprintf(&b, "%s{installation=%q} %d\n", rname, strconv.FormatInt(id, 10), m.rate[id])
	}
	_, _ = io.WriteString(w, b.String())
}

func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
