package action_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/kyku/action/internal/github/githubtest"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/sim"
)

// echoingCloud is the sim, except that creating a resource named in
// failCreate, and deleting any Vm, fail with an error that quotes the
// Vm's user data (a sensitive property), twice, over several lines and
// wrapped, as a cloud API echoing the request it refuses would.
type echoingCloud struct {
	*sim.Provider
	failCreate map[string]bool
	userData   string // what Delete quotes (it is given only the ID)
}

var errRefused = errors.New("the cloud refused the request")

func (p echoingCloud) Create(ctx context.Context, r provider.Resource) (provider.Object, error) {
	if p.failCreate[r.Name] {
		ud, _ := r.Properties["userData"].(string)
		return provider.Object{}, fmt.Errorf("sim: %s %q: %w:\n  userData %q is not valid cloud-init\n  (line 1: %s)", r.Type, r.Name, errRefused, ud, ud)
	}
	return p.Provider.Create(ctx, r)
}

func (p echoingCloud) Delete(ctx context.Context, typ, id string) error {
	if typ == "Vm" {
		return fmt.Errorf("sim: %s %s: %w:\n  instance with userData %q is protected\n  (%s)", typ, id, errRefused, p.userData, p.userData)
	}
	return p.Provider.Delete(ctx, typ, id)
}

func echoing(failCreate ...string) provider.Registry {
	return provider.Registry{"sim": func(ctx context.Context, settings map[string]string, getenv func(string) string) (provider.Provider, error) {
		p, err := sim.Factory(ctx, settings, getenv)
		if err != nil {
			return nil, err
		}
		fail := map[string]bool{}
		for _, n := range failCreate {
			fail[n] = true
		}
		return echoingCloud{Provider: p.(*sim.Provider), failCreate: fail, userData: secret}, nil
	}}
}

// noLeakAnywhere is noLeak, and the pull request's comments.
func (f *fixture) noLeakAnywhere(t *testing.T, r result, number int) {
	t.Helper()
	noLeak(t, r)
	for _, c := range f.srv.Comments(repoName, number) {
		if strings.Contains(c.Body, secret) {
			t.Errorf("a comment shows the secret:\n%s", c.Body)
		}
	}
}

// TestApplyErrorQuotingASecretIsScrubbed: a provider's error that quotes
// a sensitive value, when a change fails at apply, is shown as the PR
// comment shows it — "(sensitive)" — in the job summary and in the log's
// error annotation too: wrapped, twice, over several lines; for a create
// and for a failed destroy.
func TestApplyErrorQuotingASecretIsScrubbed(t *testing.T) {
	f := newFixture(t)
	f.srv.SetPermission(repoName, "hubot", "write")
	f.srv.SetPermission(repoName, "octocat", "write")
	f.setRef(defaultRef, f.config("web"))
	f.setCheckout(f.config("web"))

	t.Run("a failed create", func(t *testing.T) {
		f.providers = echoing("worker")
		f.setRef(shaA, f.config("web", "worker"))
		f.addPR(2, shaA)
		wantCode(t, f.run("pull_request", prEvent(t, "pull_request.opened.json", 2, shaA), nil), 0)
		f.srv.AddReview(repoName, 2, githubtest.Review{User: "octocat", State: "APPROVED", CommitID: shaA})
		r := f.run("issue_comment", commentEvent(t, 2, "hubot", "/kyku apply", 8001), map[string]string{"GITHUB_ACTOR": "hubot"})
		wantCode(t, r, 1)
		f.noLeakAnywhere(t, r, 2)
		if !strings.Contains(r.summary, `userData "(sensitive)" is not valid cloud-init`) || !strings.Contains(r.summary, "(line 1: (sensitive))") {
			t.Errorf("the summary does not show the scrubbed error:\n%s", r.summary)
		}
		if !strings.Contains(r.stdout, "::error::apply failed: 1 succeeded, 1 failed") || !strings.Contains(r.stdout, "(sensitive)") {
			t.Errorf("the log does not show the scrubbed error:\n%s", r.stdout)
		}
	})

	t.Run("a failed destroy", func(t *testing.T) {
		// worker is created this time, then a pull request removes it:
		// its delete fails.
		f.providers = echoing()
		f.setRef(shaB, f.config("web", "worker"))
		f.addPR(3, shaB)
		wantCode(t, f.run("pull_request", prEvent(t, "pull_request.opened.json", 3, shaB), nil), 0)
		f.srv.AddReview(repoName, 3, githubtest.Review{User: "octocat", State: "APPROVED", CommitID: shaB})
		wantCode(t, f.run("issue_comment", commentEvent(t, 3, "hubot", "/kyku apply", 8002), map[string]string{"GITHUB_ACTOR": "hubot"}), 0)

		f.setRef(shaC, f.config("web"))
		f.addPR(4, shaC)
		wantCode(t, f.run("pull_request", prEvent(t, "pull_request.opened.json", 4, shaC), nil), 0)
		f.srv.AddReview(repoName, 4, githubtest.Review{User: "octocat", State: "APPROVED", CommitID: shaC})
		r := f.run("issue_comment", commentEvent(t, 4, "hubot", "/kyku apply", 8003), map[string]string{"GITHUB_ACTOR": "hubot"})
		wantCode(t, r, 1)
		f.noLeakAnywhere(t, r, 4)
		if !strings.Contains(r.summary, `destroy`) || !strings.Contains(r.summary, `instance with userData "(sensitive)" is protected`) {
			t.Errorf("the summary does not show the scrubbed error of the destroy:\n%s", r.summary)
		}
	})
}

// TestPlanErrorQuotingASecretIsScrubbed: a plan refused with a message
// that quotes a sensitive variable's value (the sim's image check) fails
// the job with the message scrubbed in its annotation, on its line, and
// in the summary, as in the PR comment.
func TestPlanErrorQuotingASecretIsScrubbed(t *testing.T) {
	f := newFixture(t)
	cfg := "provider: sim\n" + f.backend + "variables:\n  image: { type: string, sensitive: true, default: " + secret + " }\n" +
		"resources:\n  web:\n    type: Vm\n    properties: { image: \"${var.image}\" }\n"
	f.setRef(defaultRef, f.config("web"))
	f.setCheckout(f.config("web"))
	f.setRef(shaA, cfg)
	f.addPR(2, shaA)
	r := f.run("pull_request", prEvent(t, "pull_request.opened.json", 2, shaA), nil)
	wantCode(t, r, 1)
	f.noLeakAnywhere(t, r, 2)
	if !strings.Contains(r.stdout, `file=infra/kyku.yaml,line=8`) || !strings.Contains(r.stdout, `not "(sensitive)"`) {
		t.Errorf("the annotation lost its line or does not say what it masked:\n%s", r.stdout)
	}
}
