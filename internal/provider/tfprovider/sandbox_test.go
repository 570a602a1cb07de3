package tfprovider_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/provider/tfprovider"
	"github.com/kyku/action/internal/tfplugin"
	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// TestSandboxedProviderThroughTheEngine: a sandboxed provider plans and
// applies through the engine as any other: its data source, read at plan,
// flows to a resource of Kyku's own, and its resource is created with
// what it reported in state. Sandboxed, no escape got through (its parent's
// environment, other processes, the bot's file, a write outside, the
// metadata stand-in, a user namespace), yet it reached the server it may
// and had the variable and the file granted to it; without the sandbox,
// every escape got through.
func TestSandboxedProviderThroughTheEngine(t *testing.T) {
	e := tfplugintest.NewEscapes(t)
	granted := filepath.Join(t.TempDir(), "granted.json")
	if err := os.WriteFile(granted, []byte("granted-file-content"), 0o600); err != nil {
		t.Fatal(err)
	}
	try := e.YAML([]string{"GRANTED_TOKEN"}, granted)
	for _, tc := range []struct {
		name    string
		sandbox *tfplugin.Sandbox
		want    []string
	}{
		{"sandboxed", &tfplugin.Sandbox{Network: tfplugin.NetworkProxied, Deny: e.Deny(), Files: []string{granted}}, nil},
		{"not sandboxed", nil, tfplugintest.AllEscapes()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.sandbox != nil {
				tfplugintest.RequireSandbox(t, tc.sandbox)
			}
			w := newWorld(t, tfplugintest.Framework)
			w.tune = func(c *tfprovider.Config) {
				c.Sandbox, c.Env, c.Dir = tc.sandbox, []string{"GRANTED_TOKEN=granted-env-value"}, w.dir
			}
			cfg := w.parse(`providers:
  TP: { source: kyku/TP, config: { dir: CLOUD } }
resources:
  probe: { type: TP_escape, properties: ` + try + ` }
  shown: { type: Vpc, properties: { cidr: 10.0.0.0/16, tags: { report: "${look.report}" } } }
data:
  look: { type: TP_escape, properties: ` + try + ` }
`)
			os.Remove(e.Outside)
			p := w.plan(cfg)
			shown := change(p, "shown")
			if shown == nil || prop(shown, "tags") == nil {
				t.Fatalf("the data source's report does not reach the plan: %+v", shown)
			}
			tags, _ := prop(shown, "tags").New.(map[string]any)
			report, _ := tags["report"].(string)
			if diff := cmp.Diff(tc.want, e.Succeeded(report)); diff != "" {
				t.Errorf("at plan, escapes that got through (-want +got):\n%s\n%s", diff, report)
			}
			if !e.ReachedCloud(report) || !strings.Contains(report, "env GRANTED_TOKEN: granted-env-value") ||
				!strings.Contains(report, "read "+granted+": granted-file-content") {
				t.Errorf("at plan, the provider lacked its network or its grants:\n%s", report)
			}

			os.Remove(e.Outside)
			w.apply(cfg)
			out := w.state().Resources["probe"].Outputs
			report, _ = out["report"].(string)
			if diff := cmp.Diff(tc.want, e.Succeeded(report)); diff != "" {
				t.Errorf("at apply, escapes that got through (-want +got):\n%s\n%s", diff, report)
			}
			if env, _ := out["env_values"].(map[string]any); env["GRANTED_TOKEN"] != "granted-env-value" {
				t.Errorf("at apply, the granted variable: %v", out["env_values"])
			}
		})
	}
}
