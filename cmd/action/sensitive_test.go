package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kyku/action/internal/github/githubtest"
)

// The pull request's own configuration against what is secret: which
// variables are sensitive is the default branch's word, a sensitive value
// cannot name instances, and the log masks are the secrets only.

// defaultSensitive is the default branch: dbPass is sensitive; the
// workflow passes it (and another secret, KYKU_VAR_apiToken) from its
// protected secrets.
const defaultSensitive = "provider: sim\nbackend: { type: local, path: .kyku-state }\n" +
	"variables:\n  dbPass: { type: string, sensitive: true }\n" +
	"resources:\n  web:\n    type: Vm\n    properties: { image: debian-12, userData: \"DB=${var.dbPass}\" }\n"

const (
	dbSecret  = "db-s3cret-from-a-protected-secret"
	apiSecret = "api-t0ken-the-workflow-passes"
)

// published is everything a run published besides its log: every comment
// on number, the job summary, and plan.json.
func (r *runner) published(number int) map[string]string {
	r.t.Helper()
	out := map[string]string{}
	for _, c := range r.srv.Comments(repoName, number) {
		out["comment "+c.User] += c.Body
	}
	if s, err := os.ReadFile(filepath.Join(r.dir, "summary.md")); err == nil {
		out["summary"] = string(s)
	}
	_ = filepath.WalkDir(r.dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Name() == "plan.json" {
			data, _ := os.ReadFile(p)
			out[p] = string(data)
		}
		return nil
	})
	return out
}

// noneShows fails when a secret is anywhere a reader sees it: published
// text, or a log line that is not its own ::add-mask::.
func noneShows(t *testing.T, r *runner, number int, log string, secrets ...string) {
	t.Helper()
	for where, text := range r.published(number) {
		for _, s := range secrets {
			if strings.Contains(text, s) {
				t.Errorf("%s shows the secret %q:\n%s", where, s, text)
			}
		}
	}
	for _, line := range strings.Split(log, "\n") {
		for _, s := range secrets {
			if strings.Contains(line, s) && !strings.HasPrefix(line, "::add-mask::") {
				t.Errorf("the log shows the secret %q: %q", s, line)
			}
		}
	}
}

// TestBinaryPullRequestCannotDeclareASecretNotSensitive: the default
// branch declares dbPass sensitive; a pull request redeclares it not
// sensitive and puts it in a tag, and reads another secret the workflow
// passes under a variable the default branch does not declare. On the
// pull request's own run and on a writer's /kyku plan (the default
// branch's workflow, with the protected secrets), neither secret is in a
// comment, plan.json, the summary or the log, and both are masked.
func TestBinaryPullRequestCannotDeclareASecretNotSensitive(t *testing.T) {
	pr := "provider: sim\nbackend: { type: local, path: .kyku-state }\n" +
		"variables:\n  dbPass: { type: string }\n  apiToken: { type: string }\n" +
		"resources:\n  web:\n    type: Vm\n    properties: { image: debian-12, userData: \"DB=${var.dbPass}\", tags: { owner: \"${var.dbPass}\", note: \"t-${var.apiToken}\" } }\n"
	srv := newServer(t, pr)
	srv.SetFile(repoName, "master", "kyku.yaml", []byte(defaultSensitive))
	srv.SetPermission(repoName, "hubot", "write")
	r := newRunner(t, srv)
	secrets := []string{"KYKU_VAR_dbPass=" + dbSecret, "KYKU_VAR_apiToken=" + apiSecret}

	r.checkout(pr) // a pull request's own run checks out its head
	got := r.run("pull_request", r.event(7, head, nil), secrets...)
	if got.code != 0 {
		t.Fatalf("plan: exit %d\n%s", got.code, got.log)
	}
	wantIn(t, "log", got.log, "::add-mask::"+dbSecret, "::add-mask::"+apiSecret)
	wantIn(t, "plan comment", r.lastReply(7), "+   tags: (sensitive)")
	noneShows(t, r, 7, got.log, dbSecret, apiSecret)

	r.checkout(defaultSensitive) // a comment's run is the default branch's workflow
	got = r.run("issue_comment", r.comment(7, "hubot", "/kyku plan", 81), append(secrets, "GITHUB_ACTOR=hubot")...)
	if got.code != 0 {
		t.Fatalf("/kyku plan: exit %d\n%s", got.code, got.log)
	}
	wantIn(t, "log", got.log, "::add-mask::"+dbSecret, "::add-mask::"+apiSecret)
	noneShows(t, r, 7, got.log, dbSecret, apiSecret)
}

// TestBinarySensitiveForEachIsRefused: a pull request uses the default
// branch's sensitive list (from a secret) as a forEach, so that its keys
// name instances and cloud names in clear. Refused at the line and column,
// as Terraform refuses sensitive for_each; no key is shown anywhere.
func TestBinarySensitiveForEachIsRefused(t *testing.T) {
	base := "provider: sim\nbackend: { type: local, path: .kyku-state }\nvariables:\n  teams: { type: list, sensitive: true }\nresources: {}\n"
	pr := "provider: sim\nbackend: { type: local, path: .kyku-state }\nvariables:\n  teams: { type: list }\nresources:\n" +
		"  key:\n    type: SshKey\n    forEach: \"${var.teams}\"\n    properties: { publicKey: \"ssh-ed25519 AAAA ${each.key}\" }\n"
	srv := newServer(t, pr)
	srv.SetFile(repoName, "master", "kyku.yaml", []byte(base))
	r := newRunner(t, srv)
	r.checkout(pr)
	got := r.run("pull_request", r.event(7, head, nil), "KYKU_VAR_teams=[secret-team-alpha, secret-team-beta]")
	if got.code != 1 {
		t.Fatalf("exit %d, want 1\n%s", got.code, got.log)
	}
	const msg = `resource "key": forEach cannot use variable "teams", which is sensitive (the default branch declares it sensitive): its keys would name instances and cloud names in clear`
	wantIn(t, "log", got.log, "::error col=14,file=kyku.yaml,line=8,title=kyku config::"+msg,
		"::add-mask::secret-team-alpha", "::add-mask::secret-team-beta")
	noneShows(t, r, 7, got.log, "secret-team-alpha", "secret-team-beta")
	if c := r.cloud(); len(c) != 0 {
		t.Errorf("the cloud holds %v", c)
	}
}

// TestBinaryPullRequestCannotChooseLogMasks: a pull request makes the
// privileged run register "::add-mask::destroy" and "::add-mask::worker"
// (a "sensitive default", a sensitive property's literal), which would hide
// those words — "1 to destroy" — in every later line of the log. Only
// secrets are masks: on the plan and on the apply path the log registers
// none of its strings, while the comment still shows them as (sensitive).
func TestBinaryPullRequestCannotChooseLogMasks(t *testing.T) {
	pr := "provider: sim\nbackend: { type: local, path: .kyku-state }\n" +
		"variables:\n  mode: { type: string, sensitive: true, default: destroy }\n" +
		"resources:\n  web:\n    type: Vm\n    properties: { image: debian-12, size: small, userData: \"${var.mode}\" }\n" +
		"  other:\n    type: Vm\n    properties: { image: debian-12, userData: worker }\n"
	srv := newServer(t, pr)
	srv.SetPermission(repoName, "octocat", "write")
	srv.SetPermission(repoName, "hubot", "write")
	r := newRunner(t, srv)
	r.checkout(config)
	masks := func(log string) []string {
		var out []string
		for _, line := range strings.Split(log, "\n") {
			if m, ok := strings.CutPrefix(line, "::add-mask::"); ok && m != githubtest.Token {
				out = append(out, m)
			}
		}
		return out
	}
	got := r.run("pull_request", r.event(7, head, nil))
	if got.code != 0 {
		t.Fatalf("plan: exit %d\n%s", got.code, got.log)
	}
	if m := masks(got.log); len(m) != 0 {
		t.Errorf("the pull request's strings became log masks on plan: %q", m)
	}
	wantIn(t, "plan comment", r.lastReply(7), "userData: (sensitive)")

	srv.AddReview(repoName, 7, githubtest.Review{User: "octocat", State: "APPROVED", CommitID: head})
	got = r.run("issue_comment", r.comment(7, "hubot", "/kyku apply", 82), "GITHUB_ACTOR=hubot")
	if got.code != 0 || len(r.cloud()) != 2 {
		t.Fatalf("apply: exit %d, cloud %v\n%s", got.code, r.cloud(), got.log)
	}
	if m := masks(got.log); len(m) != 0 {
		t.Errorf("the pull request's strings became log masks on apply: %q", m)
	}
}
