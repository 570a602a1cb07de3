package bot_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kyku/action/internal/bot"
	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/statemgr/s3/s3test"
)

// seedLegacy applies configV1 (with extra, a backend) where the bot kept
// the repository's state while namespaces were keyed by its name: the
// backend under "codertocat/hello-world/" (a local path, or the s3
// prefix legacy/<prefix>) and the sim cloud under the same name.
func (h *harness) seedLegacy(extra, prefix string) {
	h.t.Helper()
	cfg, err := config.Parse([]config.File{{Name: "kyku.yaml", Data: []byte(configV1 + extra)}})
	if err != nil {
		h.t.Fatal(err)
	}
	c := cfg.Clone()
	c.Provider.Settings = map[string]string{"dir": legacy + "/sim"}
	if c.Backend == nil {
		c.Backend = &config.Backend{Type: "local", Path: legacy}
	} else {
		c.Backend.Prefix = legacy + "/" + prefix
	}
	ctx := h.t.Context()
	ws, err := h.open(ctx, bot.Tenant{Repo: repoName, Namespace: legacy}, c, "")
	if err != nil {
		h.t.Fatal(err)
	}
	res, err := ws.Engine.Apply(ctx, c, engine.ApplyOptions{AutoApprove: true}, nil)
	if err != nil || res.Err() != nil {
		h.t.Fatalf("seed the legacy state: %v %v", err, res.Err())
	}
	h.mu.Lock()
	h.tenants, h.simDirs = nil, nil
	h.mu.Unlock()
}

// prOpenedCreated is prOpened for a repository GitHub created at created.
func prOpenedCreated(t *testing.T, number int, sha, created string) []byte {
	return fixture(t, "pull_request.opened.with-organization", func(p map[string]any) {
		p["number"] = number
		obj(p, "pull_request")["number"] = number
		obj(p, "pull_request", "head")["sha"] = sha
		obj(p, "installation")["id"] = installation
		obj(p, "repository")["created_at"] = created
	})
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

// TestNamespaceIsTheRepositorysIDAndLegacyStateMovesOnce: the bot kept a
// repository's state under its name, which a renamed repository loses and
// a repository registered again under the name inherits. Its namespace is
// its numeric ID now; what it had under its name (state and sim cloud) is
// found and moved there once, with a log line, so its next plan knows
// every resource. State written before the repository existed is
// another's: it is not moved (a warning says so) and the repository starts
// empty. On the local backend here; on real S3 below.
func TestNamespaceIsTheRepositorysIDAndLegacyStateMovesOnce(t *testing.T) {
	t.Run("moved", func(t *testing.T) {
		h := newHarness(t, harnessOpts{})
		h.seedLegacy("", "")
		h.pr(2, headA)
		h.deliver("pull_request", prOpened(t, 2, headA))
		h.settle()
		if run := h.checkRun(repoName); run.Conclusion != "success" || run.Title != "1 to create, 0 to update, 0 to replace, 0 to destroy" {
			t.Errorf("check run %s %q, want only the worker to create: the moved state knows web", run.Conclusion, run.Title)
		}
		for _, dir := range []string{filepath.Join(h.stateDir, legacy), filepath.Join(h.simDir, legacy, "sim")} {
			if exists(dir) {
				t.Errorf("%s is still there", dir)
			}
		}
		if !exists(filepath.Join(h.stateDir, namespace, "state.json")) || !exists(filepath.Join(h.simDir, namespace, "sim")) {
			t.Errorf("state or cloud not under %s: %v", namespace, files(t, h.stateDir))
		}
		if logs := h.logs(); !strings.Contains(logs, "moved the repository's directory from its name's namespace to its ID's") || !strings.Contains(logs, legacy) {
			t.Errorf("no log line for the move:\n%s", logs)
		}

		// Once: the next event finds nothing to move.
		before := strings.Count(h.logs(), "moved the repository's")
		h.gh.UpdatePullRequest(repoName, 2, func(p *githubtestPR) { p.HeadSHA = headB })
		h.deliver("pull_request", fixtureAction(t, prOpened(t, 2, headB), "synchronize"))
		h.settle()
		if after := strings.Count(h.logs(), "moved the repository's"); after != before {
			t.Errorf("moved again: %d log lines, then %d", before, after)
		}
	})

	t.Run("predates the repository: not moved", func(t *testing.T) {
		h := newHarness(t, harnessOpts{})
		h.seedLegacy("", "")
		h.pr(2, headA)
		// The repository was created after the state under its name was
		// written: another repository of that name left it.
		h.deliver("pull_request", prOpenedCreated(t, 2, headA, "2100-01-01T00:00:00Z"))
		h.settle()
		if run := h.checkRun(repoName); run.Title != "2 to create, 0 to update, 0 to replace, 0 to destroy" {
			t.Errorf("check run %q, want a fresh namespace (2 to create)", run.Title)
		}
		if !exists(filepath.Join(h.stateDir, legacy, "state.json")) {
			t.Error("the former repository's state was moved or removed")
		}
		if logs := h.logs(); !strings.Contains(logs, "not moving the directory under the repository's former name: it predates it") {
			t.Errorf("no warning:\n%s", logs)
		}
	})
}

// TestLegacyStateMovesOnceOnS3: the same on the real S3-compatible server
// (.ci/s3-server.sh; skipped without it): the objects under the name's
// prefix move under the ID's, none is left behind, and the plan knows the
// moved state.
func TestLegacyStateMovesOnceOnS3(t *testing.T) {
	s := s3test.Require(t)
	bucket := s.NewBucket(t)
	t.Setenv("AWS_ACCESS_KEY_ID", s.Access)
	t.Setenv("AWS_SECRET_ACCESS_KEY", s.Secret)
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	backend := fmt.Sprintf("backend:\n  type: s3\n  bucket: %s\n  prefix: shared\n  region: %s\n  endpoint: %s\n  usePathStyle: true\n", bucket, s.Region, s.Endpoint)
	h := newHarness(t, harnessOpts{backend: backend, policy: testPolicy(bucket)})
	h.seedLegacy(backend, "shared")
	if keys := s.Keys(t, bucket, legacy+"/"); len(keys) == 0 {
		t.Fatal("seeding wrote nothing under the legacy prefix")
	}
	h.pr(2, headA)
	h.deliver("pull_request", prOpened(t, 2, headA))
	h.settle()
	if run := h.checkRun(repoName); run.Title != "1 to create, 0 to update, 0 to replace, 0 to destroy" {
		t.Errorf("check run %q, want only the worker to create", run.Title)
	}
	if left := s.Keys(t, bucket, legacy+"/"); len(left) != 0 {
		t.Errorf("left under the legacy prefix: %v", left)
	}
	if keys := s.Keys(t, bucket, namespace+"/shared/"); !slices.Contains(keys, namespace+"/shared/state.json") {
		t.Errorf("no state under the ID's prefix: %v", keys)
	}
	if logs := h.logs(); !strings.Contains(logs, "moved the repository's objects from its name's namespace to its ID's") || !strings.Contains(logs, `"from":"codertocat/hello-world/shared"`) {
		t.Errorf("no log line for the move:\n%s", logs)
	}
}
