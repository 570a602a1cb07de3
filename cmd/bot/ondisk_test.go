package main

import (
	"strings"
	"testing"

	"github.com/kyku/action/internal/bot"
	"github.com/kyku/action/internal/bot/tenancy"
	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/workspace"
)

// TestLocalTerraformStateRefusedInOneLine: a Terraform root's local
// state (a local backend block, or none) is refused with the same line
// where the policy judges the backend block and again by the opener,
// and that line points to what the bot opens (s3 or gcs), not to an
// http backend the bot refuses as well.
func TestLocalTerraformStateRefusedInOneLine(t *testing.T) {
	p, err := tenancy.Parse("policy.yaml", []byte("repositories:\n  - match: [\"acme/infra\"]\n    buckets: [{ name: acme-state }]\n    terraform-providers: [hashicorp/null]\n"))
	if err != nil {
		t.Fatal(err)
	}
	open := opener(func(string) string { return "" }, t.TempDir())
	for _, typ := range []string{"", "local"} {
		t.Run("type "+typ, func(t *testing.T) {
			_, confineErr := tenancy.ConfineTerraform(&config.Config{}, tenancy.TerraformState{Type: typ, Pos: diag.Pos{File: "infra/main.tf", Line: 2, Col: 3}}, "", p.For("acme", "infra", 7))
			ts := &workspace.TerraformState{Type: typ, Dir: t.TempDir(), Where: "infra/main.tf:2:3"}
			_, openErr := open(t.Context(), bot.Tenant{Repo: "acme/infra", Namespace: "repo.7", Terraform: ts}, &config.Config{}, "")
			if confineErr == nil || openErr == nil {
				t.Fatalf("confine: %v; open: %v; want both refused", confineErr, openErr)
			}
			line := confineErr.Error()
			if !strings.HasSuffix(openErr.Error(), ": "+line) {
				t.Errorf("the opener says\n  %v\nthe policy says\n  %s", openErr, line)
			}
			if !strings.Contains(line, "local state is refused in the bot") || !strings.Contains(line, "s3 or gcs") || strings.Contains(line, "http") {
				t.Errorf("refusal %q: want local state refused, pointing to s3 or gcs only", line)
			}
		})
	}
}
