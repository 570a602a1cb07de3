package bot_test

import (
	"io"
	"net/http"
	"strings"
)

// idle reports whether /healthz shows no job queued and none running
// here: the numbers the kyku_bot_queue_depth and kyku_bot_jobs_running
// gauges show too, read from the same queue. settle polls this instead
// of /metrics, whose scrape also gathers the Go runtime and process
// collectors: about 17 ms of CPU under -race, which, polled every 5 ms,
// kept a core busy for as long as the jobs it waited for ran.
func (h *harness) idle() bool {
	h.t.Helper()
	resp, err := http.Get(h.http.URL + "/healthz")
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		h.t.Fatalf("GET /healthz: %s %v", resp.Status, err)
	}
	counts := map[string]string{}
	for line := range strings.SplitSeq(string(body), "\n") {
		if name, value, ok := strings.Cut(line, " "); ok {
			counts[name] = value
		}
	}
	queued, okQ := counts["queued"]
	running, okR := counts["running"]
	if !okQ || !okR {
		h.t.Fatalf("/healthz shows no queued or running count:\n%s", body)
	}
	return queued == "0" && running == "0"
}
