package deptest

import (
	"os/exec"
	"strings"
	"testing"
)

// TestOnlyTheBotServesMetrics: the Prometheus client serves the bot's
// /metrics; no other Kyku package imports it. (The Action and the CLI may
// still link it through hcloud-go's own instrumentation, which they never
// register or serve.)
func TestOnlyTheBotServesMetrics(t *testing.T) {
	const mod = "github.com/kyku/action/"
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", mod+"...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list %s...: %v\n%s", mod, err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg, imports := f[0], f[1:]
		own := pkg == mod+"cmd/bot" || pkg == mod+"internal/bot" || strings.HasPrefix(pkg, mod+"internal/bot/")
		for _, imp := range imports {
			if strings.HasPrefix(imp, "github.com/prometheus/") && !own {
				t.Errorf("%s imports %s: only the bot serves metrics", pkg, imp)
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
