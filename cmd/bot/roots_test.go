package main

import (
	"strings"
	"testing"

	"github.com/kyku/action/internal/bot"
	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/workspace"
)

// TestOpenerRefusesTerraformStateOnItsDisk: a Terraform root's local or
// http backend keeps Kyku's saved plans and backups on disk beside the
// root; the bot keeps nothing on its disk, so it refuses them (whatever
// the policy allowed) and names the backend block.
func TestOpenerRefusesTerraformStateOnItsDisk(t *testing.T) {
	open := opener(func(string) string { return "" }, t.TempDir())
	for _, typ := range []string{"", "local", "http"} {
		t.Run("type "+typ, func(t *testing.T) {
			ts := &workspace.TerraformState{Type: typ, Args: map[string]any{"address": "https://state.example/infra"}, Dir: t.TempDir(), Where: "infra/main.tf:2:3"}
			_, err := open(t.Context(), bot.Tenant{Repo: "acme/infra", Namespace: "repo.7", Terraform: ts}, &config.Config{}, "")
			if err == nil || !strings.Contains(err.Error(), "infra/main.tf:2:3: a Terraform root's") || !strings.Contains(err.Error(), "the bot opens a root's state in s3 or gcs") {
				t.Errorf("err = %v; want the refusal naming the block", err)
			}
		})
	}
}
