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
	"github.com/kyku/action/internal/github/githubtest"
	"github.com/kyku/action/internal/review"
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
	_, store := botStore(t)
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

// TestMergeIsJudgedByTheRulesFromBeforeIt (issue 20, attack 2): a pull
// request loosens the rules that judge it — required-approvals 2 → 1, or
// it lands after a deny policy it would break. Its plan comment says at
// the top that it changes the review rules and that they apply from the
// next PR. Merged with one approval, the bot reads the settings and the
// policies from the default branch before the merge (a merge commit's
// first parent; a squash's own tree, for a pull request that changes no
// rule file), not after the merge and not at the payload's older
// base.sha: refused, nothing applied. A rebase merge, whose first parent
// already holds the pull request's settings, is refused too: merged
// without a merge commit, a pull request that changes a rule file is.
func TestMergeIsJudgedByTheRulesFromBeforeIt(t *testing.T) {
	const (
		oldBase  = "01d0000000000000000000000000000000000b5e" // the payload's base.sha: before the deny policy landed
		rebased  = "5eba5e000000000000000000000000000000000d" // a rebase merge's first parent: the PR's first commit, rebased
		strict   = "apply: merge\nrequired-approvals: 2\n"
		loosened = "apply: merge\nrequired-approvals: 1\n"
	)
	for _, tc := range []struct {
		name    string
		before  map[string]string // the default branch before the merge (the first parent)
		pr      map[string]string // the pull request's head, and the default branch after the merge
		parents []string          // the merge commit's
		want    []string
	}{
		{"approvals loosened by the pull request", map[string]string{".kyku/config.yaml": strict}, map[string]string{".kyku/config.yaml": loosened},
			[]string{baseSHA, headA}, []string{"merged without the 2 approvals", "(1 counted)"}},
		{"a deny policy landed after the pull request's base", map[string]string{".kyku/config.yaml": loosened, botPolicyFile: botSizePolicy},
			nil, []string{baseSHA}, []string{"The policies deny this plan", "Vm worker is large"}},
		{"a rebase merge carrying the pull request's settings", map[string]string{".kyku/config.yaml": loosened}, map[string]string{".kyku/config.yaml": loosened},
			[]string{rebased}, []string{"changes `.kyku/config.yaml` and was merged without a merge commit", "re-plan on the default branch"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, harnessOpts{})
			set := func(ref string, files map[string]string) {
				h.gh.SetFile(repoName, ref, "kyku.yaml", []byte(configV1))
				for path, data := range files {
					h.gh.SetFile(repoName, ref, path, []byte(data))
				}
			}
			set(defaultBranch, tc.before)
			set(baseSHA, tc.before)
			set(tc.parents[0], tc.before)
			if tc.parents[0] == rebased {
				set(rebased, tc.pr)
			}
			// The merge commit's tree: the default branch before the merge
			// plus the pull request's changes.
			set(mergeSHA, tc.before)
			set(mergeSHA, tc.pr)
			h.gh.SetFile(repoName, mergeSHA, "kyku.yaml", []byte(configV2))
			set(oldBase, map[string]string{".kyku/config.yaml": loosened})
			set(headA, tc.pr)
			h.gh.SetFile(repoName, headA, "kyku.yaml", []byte(configV2))
			files := []string{"kyku.yaml"}
			for path := range tc.pr {
				files = append(files, path)
			}
			h.gh.AddPullRequest(repoName, githubtestPR{Number: 2, User: "author", HeadSHA: headA, HeadRef: "loosen", Files: files})
			h.deliver("pull_request", prOpened(t, 2, headA))
			h.settle()
			plan := h.lastBotComment(2)
			if says := strings.Contains(plan, "This pull request changes the review rules; they apply from the next PR (`.kyku/config.yaml`"); says != (len(tc.pr) > 0) {
				t.Errorf("the plan comment says the pull request changes the review rules: %v, want %v:\n%s", says, len(tc.pr) > 0, plan)
			}

			// Merged: the default branch now holds the pull request's rules
			// (the policy it would break gone, in the second case).
			set(defaultBranch, tc.pr)
			h.gh.SetFile(repoName, defaultBranch, botPolicyFile, []byte("package kyku\n"))
			h.gh.SetFile(repoName, defaultBranch, "kyku.yaml", []byte(configV2))
			h.gh.AddReview(repoName, 2, githubtest.Review{User: "reviewer", State: "APPROVED", CommitID: headA})
			h.gh.AddCommit(repoName, githubtest.GitCommit{SHA: mergeSHA, Parents: tc.parents, Message: "loosen (#2)"})
			h.gh.UpdatePullRequest(repoName, 2, func(p *githubtestPR) { p.State, p.Merged = "closed", true })
			h.gh.SetCommitPulls(repoName, mergeSHA, 2)
			h.deliver("pull_request", fixture(t, "pull_request.closed", func(p map[string]any) {
				p["number"] = 2
				pr := obj(p, "pull_request")
				pr["number"], pr["merged"], pr["merge_commit_sha"] = 2, true, mergeSHA
				obj(p, "pull_request", "head")["sha"] = headA
				obj(p, "pull_request", "base")["sha"] = oldBase
				obj(p, "installation")["id"] = installation
			}))
			h.settle()
			// Refused, nothing applied, saying why (tc.want).
			reply := h.lastBotComment(2)
			for _, want := range tc.want {
				if !strings.Contains(reply, want) {
					t.Errorf("reply lacks %q:\n%s", want, reply)
				}
			}
			h.wantConversation(2, "merge-judged-before-"+strings.ReplaceAll(tc.name, " ", "-"), headA)
			if c := h.cloudObjects(); len(c) != 0 {
				t.Errorf("the merge was applied by the pull request's own rules: cloud %v", c)
			}
		})
	}
}

// TestEditedPlanCommentIsRefusedByTheBot (issue 20, attack 1, through the
// bot): the author, a writer, edits the App's plan comment into a harmless
// one, keeping its hidden lines; a reviewer approves. /kyku apply is
// refused, naming who edited it, and nothing is applied; after /kyku plan
// the same apply goes through.
func TestEditedPlanCommentIsRefusedByTheBot(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.gh.SetPermission(repoName, "author", "write")
	h.pr(2, headA)
	h.deliver("pull_request", prOpened(t, 2, headA))
	h.settle()
	plan := h.botComments(2)[0]
	var hidden []string
	for _, l := range strings.Split(plan.Body, "\n") {
		if strings.HasPrefix(l, "<!-- kyku:") {
			hidden = append(hidden, l)
		}
	}
	h.gh.EditComment(repoName, plan.ID, "author", strings.Join(hidden, "\n")+"\n### Kyku plan for `default`\n\n**No changes.**\n")
	h.gh.AddReview(repoName, 2, githubtest.Review{User: "reviewer", State: "APPROVED", CommitID: headA})
	h.deliver("issue_comment", commentOn(t, 2, "author", "User", "/kyku apply", 801))
	h.settle()
	// Refused, naming who edited it, saying how to re-plan.
	h.wantConversation(2, "edited-plan-comment")
	if c := h.cloudObjects(); len(c) != 0 {
		t.Fatalf("applied behind an edited plan comment: %v", c)
	}
	h.deliver("issue_comment", commentOn(t, 2, "author", "User", "/kyku plan", 802))
	h.settle()
	h.deliver("issue_comment", commentOn(t, 2, "author", "User", "/kyku apply", 803))
	h.settle()
	if c := h.cloudObjects(); len(c) != 2 {
		t.Errorf("after /kyku plan the apply did not go through: cloud %v; reply:\n%s", c, h.lastBotComment(2))
	}
}
