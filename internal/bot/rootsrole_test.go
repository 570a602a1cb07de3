package bot_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kyku/action/internal/statemgr/s3/s3test"
)

// TestBotOpensATerraformRootsStateWithTheBucketsRole: the operator's
// policy grants the root's bucket with an IAM role; the bot assumes it
// for the repository (the real STS client against a fake STS, session
// kyku@Codertocat.Hello-World) and reads, locks and writes the root's
// state with the role's credentials, as it does a kyku.yaml backend's.
// The bot's own credentials are refused by the S3 server, so a state
// opened with them fails: without the role in the grant, the plan fails
// and nothing is written.
func TestBotOpensATerraformRootsStateWithTheBucketsRole(t *testing.T) {
	const role = "arn:aws:iam::123456789012:role/kyku-codertocat"
	for _, tt := range []struct {
		name     string
		withRole bool
	}{
		{"the bucket's role", true},
		{"the bot's own credentials", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := s3test.Require(t)
			bucket := s.NewBucket(t)
			// The bot's own identity: not one the S3 server knows.
			t.Setenv("AWS_ACCESS_KEY_ID", "bot-key")
			t.Setenv("AWS_SECRET_ACCESS_KEY", "bot-secret")
			t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
			sts := newFakeSTS(t, s.Access, s.Secret) // the role's credentials are the server's
			sts.sess = ""                            // which takes no session token
			grant := "{ name: " + bucket + " }"
			if tt.withRole {
				grant = "{ name: " + bucket + ", role: \"" + role + "\" }"
			}
			pol := "repositories:\n  - match: [\"Codertocat/*\"]\n    providers: [sim]\n    allow-endpoint: true\n    buckets: [" + grant + "]\n"
			r := s3RootIn(t, s, bucket)
			h := newHarness(t, harnessOpts{policy: pol, sts: sts})
			plan := rootPlanAndMerge(t, h, r)
			if !tt.withRole {
				if strings.Contains(plan, "terraform_data.b") || !strings.Contains(plan, "No plan could be computed") {
					t.Errorf("the root's plan comment, the bot's own credentials refused by the server, is:\n%s", plan)
				}
				if !bytes.Equal(r.get(t), []byte(tofuState)) {
					t.Errorf("the state was written with the bot's own credentials:\n%s", r.get(t))
				}
				if got := sts.assumed(); len(got) != 0 {
					t.Errorf("AssumeRole calls %v for a bucket granted without a role", got)
				}
				return
			}
			if !strings.Contains(plan, "terraform_data.b") {
				t.Errorf("the root's plan comment lacks terraform_data.b:\n%s", plan)
			}
			wantAppliedState(t, r)
			got := sts.assumed()
			if len(got) == 0 {
				t.Fatal("the role was never assumed")
			}
			for _, call := range got {
				if call != [2]string{role, "kyku@Codertocat.Hello-World"} {
					t.Errorf("AssumeRole call %v, want %s as kyku@Codertocat.Hello-World", call, role)
				}
			}
		})
	}
}
