package bot_test

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"

	"github.com/kyku/action/internal/github/webhooktest"
)

// readmeMetrics are the families the "## Metrics" table of docs/bot.md
// documents: name → type.
func readmeMetrics(t *testing.T) map[string]string {
	t.Helper()
	root, err := webhooktest.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(root, "docs", "bot.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	row := regexp.MustCompile("^\\| `([a-z_]+)` \\| ([a-z]+) \\|")
	out := map[string]string{}
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			in = line == "## Metrics"
			continue
		}
		if m := row.FindStringSubmatch(line); in && m != nil {
			out[m[1]] = m[2]
		}
	}
	if len(out) == 0 {
		t.Fatal("docs/bot.md has no metric rows under ## Metrics")
	}
	return out
}

// TestMetricsAsDocumented: after a pull request is planned, /metrics
// (parsed with Prometheus' text parser) has every family docs/bot.md
// documents, with its type, and no kyku_* family it does not;
// the Go and process collectors are there; the GitHub requests and the
// jobs were timed.
func TestMetricsAsDocumented(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.pr(2, headA)
	h.deliver("pull_request", prOpened(t, 2, headA))
	h.settle()
	families := h.scrape()

	for name, typ := range readmeMetrics(t) {
		mf, ok := families[name]
		if !ok {
			t.Errorf("docs/bot.md documents %s; /metrics lacks it", name)
			continue
		}
		if got := strings.ToLower(mf.GetType().String()); got != typ {
			t.Errorf("%s is a %s; docs/bot.md says %s", name, got, typ)
		}
	}
	documented := readmeMetrics(t)
	for name := range families {
		if strings.HasPrefix(name, "kyku_") && documented[name] == "" {
			t.Errorf("/metrics has %s; docs/bot.md's Metrics section does not document it", name)
		}
	}
	for _, name := range []string{"go_goroutines", "go_memstats_heap_alloc_bytes", "process_cpu_seconds_total", "process_resident_memory_bytes"} {
		if _, ok := families[name]; !ok {
			t.Errorf("/metrics lacks %s (Go and process collectors)", name)
		}
	}

	// Every request to the fake GitHub was timed, labelled by method and code.
	var calls uint64
	codes := map[string]bool{}
	for _, m := range families["kyku_bot_github_request_duration_seconds"].GetMetric() {
		calls += m.GetHistogram().GetSampleCount()
		codes[label(m, "method")+" "+label(m, "code")] = true
	}
	if calls == 0 || !codes["get 200"] || !codes["post 201"] {
		t.Errorf("GitHub requests timed: %d, by method and code %v; want some, get 200 and post 201 among them (promhttp lowercases methods)", calls, codes)
	}
	if n := len(h.gh.Requests()); calls < uint64(n) {
		t.Errorf("%d GitHub requests timed, the fake GitHub served %d", calls, n)
	}

	m := h.metrics()
	for key, want := range map[string]float64{
		`kyku_bot_webhooks_total{event="pull_request",result="queued"}`: 1,
		`kyku_bot_job_duration_seconds_count{kind="plan"}`:              1,
		`kyku_bot_job_duration_seconds_count{kind="pull_request"}`:      1,
		`kyku_bot_drift_rounds_total{result="ok"}`:                      0,
		`kyku_bot_queue_depth`:                                          0,
		`kyku_bot_draining`:                                             0,
	} {
		if got, ok := m[key]; !ok || got != want {
			t.Errorf("%s = %v (present %v), want %v", key, got, ok, want)
		}
	}
}

func label(m *dto.Metric, name string) string {
	for _, lp := range m.GetLabel() {
		if lp.GetName() == name {
			return lp.GetValue()
		}
	}
	return ""
}
