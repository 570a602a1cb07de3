package bot_test

import (
	"strings"
	"testing"
)

// TestBotNeverActsWithItsOwnCredentials: every repository the App is
// installed on could make the bot act with the bot's own credentials —
// aws and hetzner without an operator policy, an import that adopts
// whatever those credentials reach (another tenant's object, which a later
// apply destroys), an aws-kms key opened with the bot's AWS identity. Each
// is refused before any workspace is opened, with the file and line and
// the policy key that would allow it.
func TestBotNeverActsWithItsOwnCredentials(t *testing.T) {
	const hetznerPolicy = "repositories:\n  - match: [\"Codertocat/*\"]\n    providers: [hetzner, aws]\n    buckets: [{ name: acme-state }]\n"
	s3 := "backend: { type: s3, bucket: acme-state, region: eu-west-1 }\n"
	imp := "import:\n  - { to: web, id: \"i-0another-tenants\" }\n"
	for _, tc := range []struct {
		name, policy, config string
		want                 []string
	}{
		{"aws without a policy", noPolicy, "provider: aws\n" + s3,
			[]string{"kyku.yaml:1:1: ", `provider "aws" is not allowed in the bot without an operator policy (KYKU_BOT_POLICY): it would act with the bot's own AWS credentials`, "providers: [aws]"}},
		{"hetzner without a policy", noPolicy, "provider: hetzner\n" + s3,
			[]string{"kyku.yaml:1:1: ", `provider "hetzner" is not allowed in the bot without an operator policy (KYKU_BOT_POLICY): it would act with the bot's own HCLOUD_TOKEN`, "providers: [hetzner]"}},
		{"import with the bot's HCLOUD_TOKEN", hetznerPolicy, "provider: hetzner\n" + s3 + imp,
			[]string{"kyku.yaml:4:5: import of web (id i-0another-tenants) is not allowed", "the bot's own HCLOUD_TOKEN", "allow-import: true"}},
		{"import with the bot's AWS credentials", hetznerPolicy, "provider: aws\n" + s3 + imp,
			[]string{"kyku.yaml:4:5: import of web", "its bucket has no role", "repositories[].buckets[].role"}},
		{"aws-kms with the bot's AWS credentials", hetznerPolicy, "provider: aws\n" + s3 + "encryption: { key: aws-kms, keyId: alias/another-tenant }\n",
			[]string{"kyku.yaml:3:1: encryption key aws-kms needs the repository's role", "repositories[].buckets[].role"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, harnessOpts{policy: tc.policy})
			h.gh.SetFile(repoName, defaultBranch, "kyku.yaml", []byte(tc.config+configV1))
			h.gh.SetFile(repoName, headA, "kyku.yaml", []byte(tc.config+configV2))
			h.pr(2, headA)
			h.deliver("pull_request", prOpened(t, 2, headA))
			h.settle()
			run := h.checkRun(repoName)
			if run.Conclusion != "failure" {
				t.Errorf("check run %s: %s, want a failure", run.Name, run.Conclusion)
			}
			for _, w := range tc.want {
				if !strings.Contains(run.Summary, w) {
					t.Errorf("check run summary lacks %q:\n%s", w, run.Summary)
				}
			}
			if len(h.opened()) != 0 {
				t.Errorf("a workspace was opened anyway: %v", h.opened())
			}
		})
	}
}
