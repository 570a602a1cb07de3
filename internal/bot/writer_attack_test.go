package bot_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kyku/action/internal/bot"
	"github.com/kyku/action/internal/review"
	"github.com/kyku/action/internal/statemgr"
	s3b "github.com/kyku/action/internal/statemgr/s3"
	"github.com/kyku/action/internal/statemgr/s3/s3test"
)

// TestCommandInCodeIsNotRun (issue 20, attack 8): a writer pastes
// `/kyku apply` in code or a quote — indented, tab-indented, in <pre>,
// <code>, a code span over lines, a quote's lazy continuation, an HTML
// comment. The bot answers 200 "no /kyku command" from the payload
// alone: no API call, no job, nothing applied.
func TestCommandInCodeIsNotRun(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	for i, body := range []string{
		"To ship it, comment:\n\n    /kyku apply\n",
		"\t/kyku apply",
		"  \t/kyku apply -e prod",
		"<pre>\n/kyku apply\n</pre>",
		"Output:<pre>\n/kyku apply</pre>",
		"<code>\n/kyku apply\n</code>",
		"Run `\n/kyku apply\n` once approved",
		"> the author said:\n/kyku apply",
		"<!-- reminder\n/kyku apply\n-->",
		"```\n/kyku apply\n```",
	} {
		code, msg := h.post("issue_comment", "code-"+string(rune('a'+i)), commentOn(t, 2, "author", "User", body, int64(700+i)), "")
		if code != http.StatusOK || !strings.Contains(msg, "no /kyku command") {
			t.Errorf("%q: %d %q, want 200 ignored: no /kyku command", body, code, msg)
		}
	}
	h.settle()
	if reqs := h.gh.Requests(); len(reqs) != 0 {
		t.Errorf("commands in code caused %d API calls: %+v", len(reqs), reqs)
	}
	if cloud := h.cloudObjects(); len(cloud) != 0 {
		t.Errorf("the cloud holds %v", cloud)
	}
}

// TestReplayedBodyRunsOnceAcrossReplicas (issue 20, attack 7): two bot
// replicas share one store on the real S3 server. The signature does not
// cover X-GitHub-Delivery, so a captured signed body is posted again under
// new IDs, to either replica, and one delivery is handed to both at once:
// each body runs once, the replays are answered 200 with why. Past the
// dedupe window a body is a new delivery again.
func TestReplayedBodyRunsOnceAcrossReplicas(t *testing.T) {
	s := s3test.Require(t)
	bucket := s.NewBucket(t)
	t.Setenv("AWS_ACCESS_KEY_ID", s.Access)
	t.Setenv("AWS_SECRET_ACCESS_KEY", s.Secret)
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	store := func() statemgr.Conditional {
		b, err := s3b.New(context.Background(), s3b.Config{Bucket: bucket, Prefix: "kyku-bot", Region: s.Region, Endpoint: s.Endpoint, UsePathStyle: true}, "", s3b.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var mu sync.Mutex
	clock := time.Now()
	now := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return clock
	}
	var plans atomic.Int32
	rules := bot.Rules{Plan: func(ctx context.Context, d review.Deps, req review.PlanRequest) (*review.PlanOutcome, error) {
		plans.Add(1)
		return review.Plan(ctx, d, req)
	}}
	a := newHarness(t, harnessOpts{rules: rules, store: store(), replica: "replica-a", now: now})
	b := a.replica(harnessOpts{rules: rules, store: store(), replica: "replica-b", now: now})
	a.pr(2, headA)
	opened := prOpened(t, 2, headA)

	for _, d := range []struct {
		to       *harness
		id       string
		code     int
		response string
	}{
		{a, "guid-1", http.StatusAccepted, "queued"},
		{b, "guid-2", http.StatusOK, "replayed body"}, // the other replica, a new ID
		{b, "guid-1", http.StatusOK, "duplicate delivery"},
		{a, "guid-3", http.StatusOK, "replayed body"},
	} {
		if code, msg := d.to.post("pull_request", d.id, opened, ""); code != d.code || !strings.Contains(msg, d.response) {
			t.Errorf("%s: %d %q, want %d %s", d.id, code, msg, d.code, d.response)
		}
	}

	// One delivery handed to both replicas at once, and its body under a
	// second ID to both: one 202 in four.
	a.gh.UpdatePullRequest(repoName, 2, func(p *githubtestPR) { p.HeadSHA = headB })
	pushed := fixtureAction(t, prOpened(t, 2, headB), "synchronize")
	var wg sync.WaitGroup
	codes := make(chan int, 4)
	for _, d := range []struct {
		to *harness
		id string
	}{{a, "guid-4"}, {b, "guid-4"}, {a, "guid-5"}, {b, "guid-5"}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, _ := d.to.post("pull_request", d.id, pushed, "")
			codes <- code
		}()
	}
	wg.Wait()
	close(codes)
	accepted := 0
	for c := range codes {
		if c == http.StatusAccepted {
			accepted++
		} else if c != http.StatusOK {
			t.Errorf("concurrent delivery answered %d", c)
		}
	}
	if accepted != 1 {
		t.Errorf("%d of 4 concurrent deliveries of one body were accepted, want 1", accepted)
	}
	a.settle()
	b.settle()
	if n := plans.Load(); n != 2 {
		t.Errorf("%d plans ran for 2 distinct bodies, want 2", n)
	}
	if replays := a.metrics()[`kyku_bot_webhooks_total{event="pull_request",result="replay"}`] +
		b.metrics()[`kyku_bot_webhooks_total{event="pull_request",result="replay"}`]; replays < 3 {
		t.Errorf("replays counted: %v, want at least 3", replays)
	}

	// Past the window the store's claims have expired: the body runs again.
	mu.Lock()
	clock = clock.Add(bot.DefaultDedupeWindow + time.Minute)
	mu.Unlock()
	if code, msg := b.post("pull_request", "guid-6", opened, ""); code != http.StatusAccepted {
		t.Errorf("after the window: %d %q, want 202", code, msg)
	}
	b.settle()
}
