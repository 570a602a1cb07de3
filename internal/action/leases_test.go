package action_test

import (
	"context"
	"strings"
	"testing"

	"github.com/kyku/action/internal/github/githubtest"
	"github.com/kyku/action/internal/lease"
	"github.com/kyku/action/internal/statemgr"
)

// leasedFixture is a fixture whose S3 backend has leases: true, with Vm
// web applied through pull request 1 (the state the others plan on). It
// skips without the S3 server: leases need its conditional writes.
func leasedFixture(t *testing.T) *fixture {
	t.Helper()
	f := newFixture(t)
	if !strings.Contains(f.backend, "type: s3") {
		t.Skip("leases need the S3 server (source .ci/s3-server.sh)")
	}
	f.backend = strings.Replace(f.backend, "usePathStyle: true }", "usePathStyle: true, leases: true }", 1)
	f.setRef(defaultRef, f.config("web"))
	f.setCheckout(f.config("web"))
	for _, u := range []string{"hubot", "octocat", "monalisa"} {
		f.srv.SetPermission(repoName, u, "write")
	}
	f.setRef(shaA, f.config("web"))
	f.addPR(1, shaA)
	f.approve(1, shaA)
	wantCode(t, f.run("pull_request", prEvent(t, "pull_request.opened.json", 1, shaA), nil), 0)
	r := f.run("issue_comment", commentEvent(t, 1, "hubot", "/kyku apply", 8001), map[string]string{"GITHUB_ACTOR": "hubot"})
	wantOutputs(t, r, map[string]string{"applied": "true"})
	return f
}

func (f *fixture) approve(number int, sha string) {
	for _, u := range []string{"octocat", "monalisa"} {
		f.srv.AddReview(repoName, number, githubtest.Review{User: u, State: "APPROVED", CommitID: sha})
	}
}

// TestLeasedPRBehindAppliesOnlyItsChanges: with leases, pull requests 2
// (adds Vm a) and 3 (adds Vm b) are planned on the same state; 3 is
// applied, then 2, whose branch lacks b: it applies its reviewed plan
// (create a) and b stays, in the cloud and in state.
func TestLeasedPRBehindAppliesOnlyItsChanges(t *testing.T) {
	f := leasedFixture(t)
	f.setRef(shaB, f.config("web", "a"))
	f.setRef(shaC, f.config("web", "b"))
	for n, sha := range map[int]string{2: shaB, 3: shaC} {
		f.addPR(n, sha)
		f.approve(n, sha)
		wantCode(t, f.run("pull_request", prEvent(t, "pull_request.opened.json", n, sha), nil), 0)
	}
	r := f.run("issue_comment", commentEvent(t, 3, "hubot", "/kyku apply", 8003), map[string]string{"GITHUB_ACTOR": "hubot"})
	wantOutputs(t, r, map[string]string{"applied": "true"})
	r = f.run("issue_comment", commentEvent(t, 2, "hubot", "/kyku apply", 8002), map[string]string{"GITHUB_ACTOR": "hubot"})
	wantOutputs(t, r, map[string]string{"applied": "true"})
	if n := len(f.cloudObjects(t)); n != 3 {
		t.Errorf("the cloud has %d objects, want web, a and b; summary:\n%s", n, r.summary)
	}
}

// TestLeasedPRApplyNamesTheObjectsAndThePR: pull request 3's apply needs
// Vm a, whose lease pull request 2's apply holds: past the lock timeout it
// is refused, the summary naming a and #2, and nothing is changed.
func TestLeasedPRApplyNamesTheObjectsAndThePR(t *testing.T) {
	f := leasedFixture(t)
	f.setRef(shaC, f.config("web", "a"))
	f.addPR(3, shaC)
	f.approve(3, shaC)
	wantCode(t, f.run("pull_request", prEvent(t, "pull_request.opened.json", 3, shaC), nil), 0)
	m, err := lease.For(t.Context(), f.backendStore(), envName, lease.Options{})
	if err != nil || m == nil {
		t.Fatalf("lease.For = %v, %v", m, err)
	}
	held, err := m.Acquire(t.Context(), []string{"a"}, lease.Holder{PR: 2, Lock: statemgr.LockInfo{Who: "github-actions", Operation: "apply", RunURL: "https://github.com/" + repoName + "/actions/runs/77"}})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release(context.Background())
	before := f.serial()
	r := f.run("issue_comment", commentEvent(t, 3, "hubot", "/kyku apply", 8004), map[string]string{"GITHUB_ACTOR": "hubot", "INPUT_LOCK-TIMEOUT": "1s"})
	wantOutputs(t, r, map[string]string{"applied": "false"})
	for _, want := range []string{"`a`", "pull request #2", "actions/runs/77"} {
		if !strings.Contains(r.summary, want) {
			t.Errorf("the summary does not name %s:\n%s", want, r.summary)
		}
	}
	if got := f.serial(); got != before {
		t.Errorf("state serial %d → %d: the refused apply wrote it", before, got)
	}
}
