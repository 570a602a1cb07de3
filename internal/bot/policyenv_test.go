package bot_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/kyku/action/internal/bot"
)

// policyFile is the operator policy the configuration tests start with
// (KYKU_BOT_POLICY is required), read by readPolicy.
const policyFile = "policy.yaml"

// readPolicy is ConfigFromEnv's readFile for tests: policyFile holds a
// minimal policy; any other name is missing.
func readPolicy(name string) ([]byte, error) {
	if name != policyFile {
		return nil, fmt.Errorf("open %s: no such file", name)
	}
	return []byte("repositories: [{match: [\"acme/*\"], buckets: [{name: acme-kyku-state}], providers: [aws]}]\n"), nil
}

// TestRefusesToStartWithoutPolicy: a bot deployed without an operator
// policy, or with one that grants nothing, would refuse every plan while
// looking deployed; it refuses to start instead, naming the variable.
func TestRefusesToStartWithoutPolicy(t *testing.T) {
	_, pemBytes := testKey(t)
	files := map[string]string{
		"nothing.yaml": "repositories:\n  - match: [\"acme/*\"]\n    buckets: [{ name: acme-kyku-state }]\n",
		"typo.yaml":    "repositories:\n  - match: [\"acme/*\"]\n    providers: [aws]\n    bucket: acme-kyku-state\n",
	}
	read := func(name string) ([]byte, error) {
		if s, ok := files[name]; ok {
			return []byte(s), nil
		}
		return readPolicy(name)
	}
	for _, tc := range []struct {
		name, policy string
		want         []string
	}{
		{"unset", "", []string{"KYKU_BOT_POLICY is required: without an operator policy the bot refuses every plan", "repositories: [{match:", "Tenancy and the operator's policy"}},
		{"grants nothing", "nothing.yaml", []string{"KYKU_BOT_POLICY: nothing.yaml:2:3: repositories: no rule lists providers or terraform-providers: the policy grants nothing"}},
		{"typo", "typo.yaml", []string{`KYKU_BOT_POLICY: typo.yaml:4:5: repositories[0].bucket: unknown key (did you mean "buckets"?)`}},
		{"missing file", "gone.yaml", []string{"read KYKU_BOT_POLICY: open gone.yaml"}},
		{"minimal", policyFile, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{bot.EnvAppID: "42", bot.EnvPrivateKey: string(pemBytes), bot.EnvWebhookSecret: "s", bot.EnvPolicy: tc.policy}
			cfg, err := bot.ConfigFromEnv(func(k string) string { return env[k] }, read)
			if tc.want == nil {
				if err != nil || cfg.Policy == nil {
					t.Fatalf("minimal policy: cfg.Policy = %v, err = %v", cfg.Policy, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("started with policy %q", tc.policy)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %v\nwant it to say %q", err, w)
				}
			}
			if tc.policy == "" && !errors.Is(err, bot.ErrNoPolicy) {
				t.Errorf("err = %v, want ErrNoPolicy", err)
			}
		})
	}
}
