package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStartupRefusesWithoutPolicy: the bot started as docs/bot.md's docker
// run would start it, but without an operator policy (or with one that
// grants nothing, or with a typo), exits 2 with one line naming
// KYKU_BOT_POLICY instead of listening and refusing every plan.
func TestStartupRefusesWithoutPolicy(t *testing.T) {
	_, keyPEM := appKey(t)
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	nothing := write("nothing.yaml", "repositories:\n  - match: [\"acme/*\"]\n    buckets: [{ name: acme-kyku-state }]\n")
	typo := write("typo.yaml", "repositories:\n  - match: [\"acme/*\"]\n    providers: [aws]\n    bucket: acme-kyku-state\n")
	for _, tc := range []struct {
		name   string
		policy []string
		want   string
	}{
		{"unset", nil, "KYKU_BOT_POLICY is required: without an operator policy the bot refuses every plan; point it at a YAML file such as repositories: [{match:"},
		{"empty", []string{"KYKU_BOT_POLICY="}, "KYKU_BOT_POLICY is required"},
		{"grants nothing", []string{"KYKU_BOT_POLICY=" + nothing}, "KYKU_BOT_POLICY: " + nothing + ":2:3: repositories: no rule lists providers or terraform-providers: the policy grants nothing"},
		{"typo", []string{"KYKU_BOT_POLICY=" + typo}, "KYKU_BOT_POLICY: " + typo + `:4:5: repositories[0].bucket: unknown key (did you mean \"buckets\"?)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bin := botBinary(t)
			// A bot that starts anyway listens until killed: stop it.
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin)
			cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir,
				"GITHUB_APP_ID=42", "GITHUB_APP_PRIVATE_KEY=" + keyPEM, "GITHUB_WEBHOOK_SECRET=s",
				"KYKU_BOT_ADDR=127.0.0.1:0", "AWS_CONFIG_FILE=/nonexistent", "AWS_SHARED_CREDENTIALS_FILE=/nonexistent"}, tc.policy...)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			err := cmd.Run()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 2 {
				t.Fatalf("bot exited with %v, want exit status 2; stderr:\n%s", err, stderr.String())
			}
			lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
			if len(lines) != 1 || !strings.Contains(lines[0], tc.want) {
				t.Errorf("stderr:\n%s\nwant one line saying %q", stderr.String(), tc.want)
			}
		})
	}
}
