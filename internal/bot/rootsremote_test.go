package bot_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/kyku/action/internal/bot/settings"
	"github.com/kyku/action/internal/github/githubtest"
	"github.com/kyku/action/internal/statemgr/gcs/gcstest"
	"github.com/kyku/action/internal/statemgr/s3/s3test"
)

// rootRemote is a Terraform root's state in a real object store: the
// S3-compatible server or the GCS emulator that .ci/run starts (skipped
// without them, a failure under CI=true).
type rootRemote struct {
	block    string // the root's backend block
	bucket   string
	stateKey string // where OpenTofu keeps the default workspace's state
	lockKey  string // and its lock while held
	put      func(t *testing.T, data []byte)
	get      func(t *testing.T) []byte // nil: no state
	keys     func(t *testing.T) []string
}

// s3Root is a root whose state is in a bucket of the S3 server under
// the repository's namespace, locked by OpenTofu's lock file. The bot's
// own credentials (the environment) are the server's.
func s3Root(t *testing.T) rootRemote {
	s := s3test.Require(t)
	t.Setenv("AWS_ACCESS_KEY_ID", s.Access)
	t.Setenv("AWS_SECRET_ACCESS_KEY", s.Secret)
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	return s3RootIn(t, s, s.NewBucket(t))
}

func s3RootIn(t *testing.T, s *s3test.Server, bucket string) rootRemote {
	key := namespace + "/infra/terraform.tfstate"
	return rootRemote{
		block: fmt.Sprintf(`  backend "s3" {
    bucket         = %q
    key            = %q
    region         = %q
    endpoints      = { s3 = %q }
    use_path_style = true
    use_lockfile   = true
  }`, bucket, key, s.Region, s.Endpoint),
		bucket: bucket, stateKey: key, lockKey: key + ".tflock",
		put: func(t *testing.T, data []byte) {
			if _, err := s.Client.PutObject(context.Background(), &awss3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader(data)}); err != nil {
				t.Fatal(err)
			}
		},
		get: func(t *testing.T) []byte {
			out, err := s.Client.GetObject(context.Background(), &awss3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
			if err != nil {
				t.Fatalf("read s3://%s/%s: %v", bucket, key, err)
			}
			defer out.Body.Close()
			data, err := io.ReadAll(out.Body)
			if err != nil {
				t.Fatal(err)
			}
			return data
		},
		keys: func(t *testing.T) []string { return s.Keys(t, bucket, namespace+"/") },
	}
}

// gcsRoot is a root whose state is in a bucket of the GCS emulator,
// under the repository's namespace (prefix/default.tfstate).
func gcsRoot(t *testing.T) rootRemote {
	s := gcstest.Require(t)
	bucket := s.NewBucket(t)
	prefix := namespace + "/infra"
	key := prefix + "/default.tfstate"
	return rootRemote{
		block: fmt.Sprintf(`  backend "gcs" {
    bucket = %q
    prefix = %q
  }`, bucket, prefix),
		bucket: bucket, stateKey: key, lockKey: prefix + "/default.tflock",
		put: func(t *testing.T, data []byte) {
			if _, err := s.Put(context.Background(), bucket, key, data, nil); err != nil {
				t.Fatal(err)
			}
		},
		get: func(t *testing.T) []byte {
			data, _, err := s.Get(context.Background(), bucket, key)
			if err != nil {
				t.Fatalf("read gs://%s/%s: %v", bucket, key, err)
			}
			return data
		},
		keys: func(t *testing.T) []string {
			var out []string
			for k := range s.Objects(t, bucket, namespace+"/") {
				out = append(out, k)
			}
			slices.Sort(out)
			return out
		},
	}
}

// rootPlanAndMerge plans pull request 2, which adds terraform_data.b to
// the root infra whose state is r's (terraform_data.a, as OpenTofu 1.12
// wrote it), then merges it with apply: merge. It returns the plan
// comment.
func rootPlanAndMerge(t *testing.T, h *harness, r rootRemote) string {
	t.Helper()
	r.put(t, []byte(tofuState))
	h.gh.SetFile(repoName, defaultBranch, settings.Path, []byte("terraform-roots: true\napply: merge\ndrift: { enabled: true }\n"))
	h.gh.SetFile(repoName, defaultBranch, "infra/main.tf", []byte(rootFiles(r.block, "a")))
	head := []byte(rootFiles(r.block, "a", "b"))
	h.gh.SetFile(repoName, headA, "infra/main.tf", head)
	h.gh.SetFile(repoName, mergeSHA, "infra/main.tf", head)
	h.gh.AddPullRequest(repoName, githubtest.PullRequest{Number: 2, User: "author", HeadSHA: headA, HeadRef: "feature", Files: []string{"infra/main.tf"}})
	h.gh.AddReview(repoName, 2, githubtest.Review{User: "reviewer", State: "APPROVED", CommitID: headA})
	h.deliver("pull_request", prOpened(t, 2, headA))
	h.settle()
	var plan string
	for _, c := range h.botComments(2) {
		if strings.Contains(c.Body, "infra") {
			plan = c.Body
		}
	}
	if !bytes.Equal(r.get(t), []byte(tofuState)) {
		t.Errorf("the plan wrote the state")
	}
	h.gh.UpdatePullRequest(repoName, 2, func(p *githubtest.PullRequest) { p.State, p.Merged = "closed", true })
	h.gh.SetCommitPulls(repoName, mergeSHA, 2)
	h.deliver("pull_request", prMerged(t, 2, headA))
	h.settle()
	// The default branch after the merge, for the drift round.
	h.gh.SetFile(repoName, defaultBranch, "infra/main.tf", head)
	return plan
}

// wantAppliedState checks that r's state is OpenTofu's after the apply
// of terraform_data.b, its lock released.
func wantAppliedState(t *testing.T, r rootRemote) {
	t.Helper()
	state := string(r.get(t))
	for _, want := range []string{`"version":4`, `"serial":2`, `"lineage":"6f1d3c1e-2b7a-4a43-9c2e-5d1f0e8a9b10"`, `"name":"a"`, `"name":"b"`,
		`"provider":"provider[\"terraform.io/builtin/terraform\"]"`} {
		if !strings.Contains(state, want) {
			t.Errorf("state at %s lacks %s:\n%s", r.stateKey, want, state)
		}
	}
	keys := r.keys(t)
	if !slices.Contains(keys, r.stateKey) {
		t.Errorf("no %s among the objects %v", r.stateKey, keys)
	}
	if slices.Contains(keys, r.lockKey) {
		t.Errorf("the lock %s is still held after the apply; objects: %v", r.lockKey, keys)
	}
}

// TestBotTerraformRootOnObjectStores: a Terraform root whose state is in
// s3 or gcs (the real server, the emulator), as the bot opens it in
// production: the pull request's plan comment shows the change and
// writes nothing; the merge applies the saved plan and writes OpenTofu's
// state at the root's key, its lock released; a drift round then reads
// it, finds it clean and, with write-state off, does not write it.
func TestBotTerraformRootOnObjectStores(t *testing.T) {
	for _, tt := range []struct {
		name   string
		remote func(t *testing.T) rootRemote
	}{
		{"s3", s3Root},
		{"gcs", gcsRoot},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.remote(t)
			h, tick := driftHarness(t, harnessOpts{policy: testPolicy(r.bucket)})
			plan := rootPlanAndMerge(t, h, r)
			for _, want := range []string{"terraform_data.b", "Plan: 1 to create, 0 to update, 0 to replace, 0 to destroy, 1 no-op"} {
				if !strings.Contains(plan, want) {
					t.Errorf("the root's plan comment lacks %q:\n%s", want, plan)
				}
			}
			wantAppliedState(t, r)
			if m := h.metrics(); m[`kyku_bot_jobs_total{kind="merge-apply",outcome="applied"}`] != 1 {
				t.Errorf("merge-apply jobs: %v", m)
			}

			applied := r.get(t)
			h.round(tick)
			m := h.metrics()
			if got := m[`kyku_bot_jobs_total{kind="drift",outcome="clean"}`]; got != 2 {
				t.Errorf("clean drift checks = %v; want 2, infra's and kyku.yaml's; log:\n%s", got, h.logs())
			}
			if !bytes.Equal(r.get(t), applied) {
				t.Errorf("the drift round wrote the state")
			}
		})
	}
}
