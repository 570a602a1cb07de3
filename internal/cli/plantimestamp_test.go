package cli_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kyku/action/internal/cli"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/sim"
	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// TestPlanTimestamp: plantimestamp() is known at plan, the plan's own
// time, as OpenTofu knows it; applying the saved plan later reads the
// same time, so the plan it promised is the one applied; kyku output
// then shows what that apply recorded.
func TestPlanTimestamp(t *testing.T) {
	k, _ := newTerraformKyku(t, tfplugintest.Framework, map[string]string{"main.tf": `
resource "terraform_data" "stamp" {
  input = plantimestamp()
}
output "planned_at" {
  value = plantimestamp()
}
`})
	at := func(now time.Time, args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		args = append(args, "-c", filepath.Join(k.dir, "tf"), "--state-dir", filepath.Join(k.dir, ".kyku"))
		code := cli.Run(t.Context(), args, cli.Env{
			Stdout: &out, Stderr: &errOut,
			Getenv:    func(name string) string { return k.env[name] },
			Providers: provider.Registry{"sim": sim.Factory},
			Hostname:  "testhost", PID: 4242,
			Now: func() time.Time { return now },
		})
		return code, out.String(), errOut.String()
	}
	planned := time.Date(2026, 12, 6, 13, 0, 0, 0, time.UTC)
	saved := filepath.Join(k.dir, "p.plan")
	code, out, errOut := at(planned, "plan", "--json", "--out", saved)
	if code != 0 {
		t.Fatalf("plan: exit %d\n%s%s", code, out, errOut)
	}
	var p struct {
		OutputChanges []struct {
			Name string `json:"name"`
			New  any    `json:"new"`
		} `json:"outputChanges"`
	}
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("plan --json: %v\n%s", err, out)
	}
	if len(p.OutputChanges) != 1 || p.OutputChanges[0].New != "2026-12-06T13:00:00Z" {
		t.Errorf("plantimestamp() at plan: outputs %+v; want 2026-12-06T13:00:00Z, known", p.OutputChanges)
	}
	code, out, errOut = at(planned.Add(time.Hour), "apply", "--plan", saved)
	if code != 0 {
		t.Fatalf("apply the saved plan an hour later: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = at(planned.Add(2*time.Hour), "output", "--json", "planned_at")
	if code != 0 || strings.TrimSpace(out) != `"2026-12-06T13:00:00Z"` {
		t.Errorf("output planned_at after apply: exit %d\n%s%s", code, out, errOut)
	}
}
