package deptest

import (
	"strings"
	"testing"
)

// TestOnlyTheBotLinksPrometheus: the Prometheus client serves the bot's
// /metrics; the Action and the CLI, short-lived processes nobody scrapes,
// do not carry it.
func TestOnlyTheBotLinksPrometheus(t *testing.T) {
	const mod = "github.com/kyku/action/"
	for _, cmd := range []string{"cmd/action", "cmd/kyku"} {
		for _, d := range deps(t, mod+cmd) {
			if strings.HasPrefix(d, "github.com/prometheus/") {
				t.Errorf("%s links %s: only the bot serves metrics", cmd, d)
			}
		}
	}
	found := false
	for _, d := range deps(t, mod+"cmd/bot") {
		found = found || strings.HasPrefix(d, "github.com/prometheus/client_golang/")
	}
	if !found {
		t.Error("cmd/bot does not link github.com/prometheus/client_golang: /metrics is not served by it")
	}
}
