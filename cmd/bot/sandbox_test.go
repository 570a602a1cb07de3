package main

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/bot"
	"github.com/kyku/action/internal/bot/tenancy"
	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/statemgr/httpstate/httpstatetest"
	"github.com/kyku/action/internal/tfinstall"
	"github.com/kyku/action/internal/tfplugin"
	"github.com/kyku/action/internal/tfplugin/tfplugintest"
	"github.com/kyku/action/internal/workspace"
)

// TestOpenerSandboxesProviders: a repository's Terraform provider, opened
// by the bot, runs sandboxed: the data source that tries every escape
// (fwtest_escape) gets none of them — not the bot's environment nor its
// file, no other process, no write outside, no metadata stand-in, which
// the bot's default denies as it does every loopback address — yet it has
// the variable and the file its grant names. A granted variable the bot
// does not have refuses the provider, saying which.
func TestOpenerSandboxesProviders(t *testing.T) {
	tfplugintest.RequireSandbox(t, &tfplugin.Sandbox{Network: tfplugin.NetworkProxied})
	e := tfplugintest.NewEscapes(t)
	ctx := t.Context()
	dir := t.TempDir()
	mirror := tfplugintest.Mirror(t, filepath.Join(dir, "mirror"), tfplugintest.Framework)
	granted := filepath.Join(dir, "granted.json")
	if err := os.WriteFile(granted, []byte("granted-file-content"), 0o600); err != nil {
		t.Fatal(err)
	}
	try := e.YAML([]string{"GRANTED_TOKEN", "GITHUB_WEBHOOK_SECRET"}, granted)
	srv := httpstatetest.New(t)
	yaml := "provider: { name: sim, dir: cloud }\n" +
		"backend: { type: http, address: \"" + srv.URL + "app-{env}\", lockAddress: \"" + srv.URL + "app-{env}\" }\n" +
		"providers:\n  fwtest: { source: kyku/fwtest, config: { dir: /nonexistent } }\n" +
		"data:\n  look: { type: fwtest_escape, properties: " + try + " }\n" +
		"resources:\n  shown: { type: Vpc, properties: { cidr: 10.0.0.0/16, tags: { report: \"${look.report}\" } } }\n"
	cfg, err := config.Parse([]config.File{{Name: "kyku.yaml", Data: []byte(yaml)}})
	if err != nil {
		t.Fatal(err)
	}
	// The lock on the default branch, as kyku init wrote it.
	if _, _, err := workspace.Init(ctx, cfg, workspace.Settings{BaseDir: dir, Plugins: workspace.Plugins{Mirror: mirror}}, false); err != nil {
		t.Fatal(err)
	}
	lock, err := tfinstall.ReadLock(workspace.LockPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"KYKU_PLUGIN_MIRROR": mirror, "KYKU_PLUGIN_CACHE": t.TempDir(), "ACME_TOKEN": "granted-env-value",
		"GITHUB_WEBHOOK_SECRET": "the-bots-webhook-secret"}
	open := opener(func(k string) string { return env[k] }, t.TempDir())
	tenant := bot.Tenant{Repo: "acme/infra", Namespace: "acme/infra", Lock: lock, ProviderGrants: tenancy.ProviderGrants{
		{Source: "kyku/fwtest", Env: map[string]string{"GRANTED_TOKEN": "ACME_TOKEN"}, Files: []string{granted}},
	}}
	ws, err := open(ctx, tenant, cfg, "prod")
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	p, err := ws.Engine.Plan(ctx, cfg)
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	var report string
	for _, c := range p.Changes {
		for _, pc := range c.Properties {
			if tags, ok := pc.New.(map[string]any); c.ResourceID == "shown" && ok {
				report, _ = tags["report"].(string)
			}
		}
	}
	if diff := cmp.Diff([]string(nil), e.Succeeded(report)); diff != "" {
		t.Errorf("escapes that got through (-want +got):\n%s\n%s", diff, report)
	}
	for _, want := range []string{"env GRANTED_TOKEN: granted-env-value", "env GITHUB_WEBHOOK_SECRET: (unset)", "read " + granted + ": granted-file-content"} {
		if !strings.Contains(report, want) {
			t.Errorf("the report lacks %q:\n%s", want, report)
		}
	}

	tenant.ProviderGrants[0].Env["AWS_SECRET_ACCESS_KEY"] = "ACME_AWS_SECRET"
	ws, err = open(ctx, tenant, cfg, "prod")
	if err == nil {
		ws.Close()
	}
	if err == nil || !strings.Contains(err.Error(), `Terraform providers refused: kyku.yaml:4:21: provider "fwtest"`) ||
		!strings.Contains(err.Error(), "ACME_AWS_SECRET, granted to it as AWS_SECRET_ACCESS_KEY by KYKU_BOT_POLICY, is not set in the bot's environment") {
		t.Errorf("a granted variable the bot lacks: %v", err)
	}
}

// TestBotSandboxDeniesMetadataUnlessGranted: the bot's providers never
// reach the host's own addresses; the metadata addresses only when their
// grant says metadata.
func TestBotSandboxDeniesMetadataUnlessGranted(t *testing.T) {
	for _, granted := range []bool{false, true} {
		c, err := confinement(func(string) string { return "" }, tenancy.ProviderGrant{Metadata: granted})
		if err != nil {
			t.Fatal(err)
		}
		want := tfplugin.DefaultDeny()
		if granted {
			want = tfplugin.HostNets()
		}
		if c.Sandbox.Network != tfplugin.NetworkProxied || !slices.Equal(c.Sandbox.Deny, want) {
			t.Errorf("metadata granted %v: network %v, deny %v", granted, c.Sandbox.Network, c.Sandbox.Deny)
		}
	}
}

// TestStartWarnsWithoutSandbox: a bot whose policy grants Terraform
// providers, started where no sandbox can be had, says at once that they
// will be refused and why; one granting none says nothing.
func TestStartWarnsWithoutSandbox(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // no bubblewrap there
	for _, tc := range []struct {
		policy, want string
	}{
		{"repositories:\n  - match: [acme/*]\n    terraform-providers: [hashicorp/null]\n", "Terraform providers will be refused"},
		{"repositories:\n  - match: [acme/*]\n    providers: [aws]\n", ""},
	} {
		p, err := tenancy.Parse("policy.yaml", []byte(tc.policy))
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		warnWithoutSandbox(t.Context(), slog.New(slog.NewJSONHandler(&buf, nil)), p)
		if tc.want == "" && buf.Len() > 0 || tc.want != "" && (!strings.Contains(buf.String(), tc.want) || !strings.Contains(buf.String(), "bubblewrap (bwrap) is not installed")) {
			t.Errorf("policy %q logged %q, want %q", tc.policy, buf.String(), tc.want)
		}
	}
}
