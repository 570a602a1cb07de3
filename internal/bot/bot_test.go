package bot_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/kyku/action/internal/bot"
)

func TestPullRequestOpenedPlansWithCheckRunAndOneComment(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.pr(2, headA)
	h.deliver("pull_request", prOpened(t, 2, headA))
	h.settle()

	runs := h.gh.CheckRuns(repoName)
	if len(runs) != 1 {
		t.Fatalf("check runs = %+v, want one", runs)
	}
	r := runs[0]
	if r.Name != "kyku plan (default)" || r.HeadSHA != headA || r.Status != "completed" || r.Conclusion != "success" {
		t.Errorf("check run = %+v, want kyku plan (default) completed success on %s", r, headA)
	}
	comments := h.botComments(2)
	if len(comments) != 1 {
		t.Fatalf("bot comments = %+v, want one plan comment", comments)
	}
	// The check run shows the plan (2 to create, worker), as the comment does.
	h.wantConversation(2, "pull-request-opened")
	if n := h.gh.CountRequests("POST", "/app/installations/1/access_tokens"); n != 1 {
		t.Errorf("%d installation token exchanges, want 1", n)
	}

	// A push (synchronize) edits the same comment: still one.
	h.gh.UpdatePullRequest(repoName, 2, func(p *githubtestPR) { p.HeadSHA = headB })
	h.deliver("pull_request", fixtureAction(t, prOpened(t, 2, headB), "synchronize"))
	h.settle()
	if c := h.botComments(2); len(c) != 1 {
		t.Errorf("after a push: %d bot comments, want the one sticky comment", len(c))
	}
	if runs := h.gh.CheckRuns(repoName); len(runs) != 2 || runs[1].HeadSHA != headB {
		t.Errorf("after a push: check runs %+v, want a second one on %s", runs, headB)
	}
	if n := h.gh.CountRequests("POST", "/app/installations/1/access_tokens"); n != 1 {
		t.Errorf("%d token exchanges after two events, want 1 (cached per installation)", n)
	}
}

func TestSignatureRequired(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	body := prOpened(t, 2, headA)
	for _, tc := range []struct{ name, sig string }{
		{"missing", "-"},
		{"wrong secret", "sha256=" + strings.Repeat("ab", 32)},
		{"not hex", "sha256=zz"},
		{"sha1 only", "sha1=" + strings.Repeat("ab", 20)},
		{"signature of another body", sign([]byte(`{}`))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if code, _ := h.post("pull_request", "d-"+tc.name, body, tc.sig); code != http.StatusUnauthorized {
				t.Errorf("status %d, want 401", code)
			}
		})
	}
	h.settle()
	if reqs := h.gh.Requests(); len(reqs) != 0 {
		t.Errorf("unsigned webhooks caused %d GitHub API calls, want none: %+v", len(reqs), reqs)
	}
	if m := h.metrics(); m[`kyku_bot_webhooks_total{event="pull_request",result="bad_signature"}`] != 5 {
		t.Errorf("bad signatures counted %v, want 5", m[`kyku_bot_webhooks_total{event="pull_request",result="bad_signature"}`])
	}
}

func TestDuplicateDeliveryRunsOneJob(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.pr(2, headA)
	body := prOpened(t, 2, headA)
	if code, _ := h.post("pull_request", "same-id", body, ""); code != http.StatusAccepted {
		t.Fatalf("first delivery: %d, want 202", code)
	}
	if code, msg := h.post("pull_request", "same-id", body, ""); code != http.StatusOK || !strings.Contains(msg, "duplicate") {
		t.Fatalf("redelivery: %d %q, want 200 duplicate", code, msg)
	}
	h.settle()
	m := h.metrics()
	if got := m[`kyku_bot_jobs_total{kind="pull_request",outcome="routed"}`]; got != 1 {
		t.Errorf("pull_request jobs = %v, want 1", got)
	}
	if got := m[`kyku_bot_jobs_total{kind="plan",outcome="planned"}`]; got != 1 {
		t.Errorf("plan jobs = %v, want 1", got)
	}
	if runs := h.gh.CheckRuns(repoName); len(runs) != 1 {
		t.Errorf("%d check runs, want 1", len(runs))
	}
}

func TestOwnAndBotCommentsIgnoredWithoutAPICalls(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	for i, u := range []struct{ login, typ string }{
		{"kyku[bot]", "Bot"},
		{"dependabot[bot]", "Bot"},
		{"renovate", "Bot"},
	} {
		code, msg := h.post("issue_comment", "bot-"+u.login, commentOn(t, 2, u.login, u.typ, "/kyku apply", int64(900+i)), "")
		if code != http.StatusOK || !strings.Contains(msg, "bot") {
			t.Errorf("%s: %d %q, want 200 ignored (bot)", u.login, code, msg)
		}
	}
	h.settle()
	if reqs := h.gh.Requests(); len(reqs) != 0 {
		t.Errorf("bot comments caused %d API calls: %+v", len(reqs), reqs)
	}
}

func TestRefusesToStartWithoutWebhookSecret(t *testing.T) {
	_, pemBytes := testKey(t)
	env := map[string]string{bot.EnvAppID: "42", bot.EnvPrivateKey: string(pemBytes), bot.EnvPolicy: policyFile}
	_, err := bot.ConfigFromEnv(func(k string) string { return env[k] }, readPolicy)
	if !errors.Is(err, bot.ErrNoWebhookSecret) {
		t.Errorf("ConfigFromEnv without %s: err = %v, want ErrNoWebhookSecret", bot.EnvWebhookSecret, err)
	}
	_, err = bot.New(bot.Options{Config: bot.Config{AppID: 42, PrivateKey: pemBytes}, Open: nil})
	if !errors.Is(err, bot.ErrNoWebhookSecret) {
		t.Errorf("New without a secret: err = %v, want ErrNoWebhookSecret", err)
	}

	env[bot.EnvWebhookSecret] = "s"
	env[bot.EnvWorkers] = "8"
	cfg, err := bot.ConfigFromEnv(func(k string) string { return env[k] }, readPolicy)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Workers != 8 || cfg.Addr != ":8080" || cfg.APIURL != "https://api.github.com/" || cfg.AppID != 42 {
		t.Errorf("config = %+v", cfg)
	}
	_, err = bot.ConfigFromEnv(func(k string) string {
		return map[string]string{bot.EnvWebhookSecret: "s", bot.EnvAppID: "x", bot.EnvWorkers: "-1"}[k]
	}, nil)
	for _, want := range []string{bot.EnvAppID, bot.EnvPrivateKey, bot.EnvWorkers} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("bad config: err = %v, want it to name %s", err, want)
		}
	}
	_, err = bot.New(bot.Options{Config: bot.Config{AppID: 42, PrivateKey: []byte("not a key"), WebhookSecret: []byte("s")},
		Open: func(context.Context, bot.Tenant, *cfgConfig, string) (*reviewWorkspace, error) { return nil, nil }})
	if err == nil {
		t.Error("New accepted a private key that is not PEM")
	}
}
