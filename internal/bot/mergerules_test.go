package bot_test

import (
	"fmt"
	"maps"
	"net/http"
	"strings"
	"testing"

	"github.com/kyku/action/internal/github/githubtest"
)

// Commits of the merges below.
const (
	writerTip  = "a77ac4e700000000000000000000000000000001" // the tip of a branch a writer pushed, with rules of their own
	writerSHA  = "a77ac4e7000000000000000000000000000000ff" // a merge commit whose first parent is writerTip
	rebasedOne = "5eba5e0000000000000000000000000000000001" // a rebase merge's first commit: the PR's first commit, rebased
	rebasedTwo = "5eba5e0000000000000000000000000000000002" // its last commit: the merge_commit_sha
)

// seedTree stores files at ref: kyku.yaml as the default branch has it
// (configV1), then files ("" deletes nothing: it is simply not stored).
func (h *harness) seedTree(ref string, files map[string]string) {
	h.gh.SetFile(repoName, ref, "kyku.yaml", []byte(configV1))
	for path, data := range files {
		h.gh.SetFile(repoName, ref, path, []byte(data))
	}
}

// mergedBy is pull_request closed/merged for #2 at headA, merged as commit
// sha; edit changes the payload further (its base, its head).
func mergedBy(t *testing.T, sha string, edit func(p map[string]any)) []byte {
	return fixture(t, "pull_request.closed", func(p map[string]any) {
		p["number"] = 2
		pr := obj(p, "pull_request")
		pr["number"], pr["merged"], pr["merge_commit_sha"] = 2, true, sha
		obj(p, "pull_request", "head")["sha"] = headA
		obj(p, "pull_request", "base")["sha"] = baseSHA
		obj(p, "installation")["id"] = installation
		if edit != nil {
			edit(p)
		}
	})
}

// planAndMerge opens #2 (planned and approved at headA by reviewers) and
// marks it merged by commit sha; the caller delivers the merge.
func (h *harness) planAndMerge(t *testing.T, sha string, reviewers ...string) {
	t.Helper()
	h.deliver("pull_request", prOpened(t, 2, headA))
	h.settle()
	for _, r := range reviewers {
		h.gh.SetPermission(repoName, r, "write")
		h.gh.AddReview(repoName, 2, githubtest.Review{User: r, State: "APPROVED", CommitID: headA})
	}
	h.gh.UpdatePullRequest(repoName, 2, func(p *githubtestPR) { p.State, p.Merged = "closed", true })
	h.gh.SetCommitPulls(repoName, sha, 2)
}

// TestMergeAppliesOnlyIntoTheDefaultBranch: a writer pushes a branch whose
// .kyku/config.yaml applies on merge with no approval, opens a pull
// request into it and merges it, unreviewed. The default branch applies on
// comment after two approvals. A merge into any branch but the default one
// is answered "ignored" from the payload, with why, and nothing is applied
// — whatever the head is called, whichever repository the payload names
// the base in, and when it names no base branch at all. When the payload
// says the default branch but GitHub's API says otherwise, the API wins:
// refused, with a reply. The same merge into the default branch (judged,
// as every merge commit, at its first parent) applies: the base is all
// that stops the others.
func TestMergeAppliesOnlyIntoTheDefaultBranch(t *testing.T) {
	for _, tc := range []struct {
		name    string
		apiBase string // the pull request's base branch as the API gives it ("": the default branch)
		edit    func(p map[string]any)
		applied bool
		says    string // in the webhook's answer, or in the reply on the pull request when it was queued
	}{
		{"into the default branch", "", nil, true, ""},
		{"into a writer's own branch", "attacker-base", func(p map[string]any) {
			obj(p, "pull_request", "base")["ref"] = "attacker-base"
		}, false, "ignored: pull_request merged into attacker-base, not the default branch master: only a merge into the default branch is applied"},
		{"from a fork's branch named like the default branch", "attacker-base", func(p map[string]any) {
			head := obj(p, "pull_request", "head")
			head["ref"] = defaultBranch
			obj(p, "pull_request", "head", "repo")["full_name"] = "mallory/Hello-World"
			obj(p, "pull_request", "base")["ref"] = "attacker-base"
		}, false, "ignored: pull_request merged into attacker-base, not the default branch master"},
		{"into a branch named like the default branch in another repository", "", func(p map[string]any) {
			obj(p, "pull_request", "base", "repo")["full_name"] = "mallory/Hello-World"
		}, false, "ignored: pull_request merged into mallory/Hello-World:master, not this repository's default branch master"},
		{"with no base branch in the payload", "attacker-base", func(p map[string]any) {
			delete(obj(p, "pull_request", "base"), "ref")
		}, false, "ignored: pull_request merged into a base branch the payload does not name"},
		{"with no base repository in the payload", "", func(p map[string]any) {
			delete(obj(p, "pull_request", "base"), "repo")
		}, false, "ignored: pull_request merged into a base repository the payload does not name"},
		{"with no base commit in the payload", "", func(p map[string]any) {
			delete(obj(p, "pull_request", "base"), "sha")
		}, false, "ignored: pull_request merged from a base commit the payload does not name"},
		{"the payload says the default branch, the API another", "attacker-base", nil,
			false, "Pull request #2 was merged into `attacker-base`, not the default branch `master`"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, harnessOpts{})
			strict := map[string]string{".kyku/config.yaml": "apply: comment\nrequired-approvals: 2\n"}
			h.seedTree(defaultBranch, strict)
			h.seedTree(baseSHA, strict)
			loose := map[string]string{".kyku/config.yaml": "apply: merge\nrequire-approval: false\n"}
			h.seedTree(writerTip, loose)
			h.gh.AddCommit(repoName, githubtest.GitCommit{SHA: writerSHA, Parents: []string{writerTip, headA}, Message: "Merge pull request #2 from evil"})
			h.gh.AddPullRequest(repoName, githubtestPR{Number: 2, User: "author", HeadSHA: headA, HeadRef: "evil", BaseRef: tc.apiBase, Files: []string{"kyku.yaml"}})
			h.gh.SetPermission(repoName, "author", "write")
			h.planAndMerge(t, writerSHA)

			code, answer := h.post("pull_request", "merge-"+strings.ReplaceAll(tc.name, " ", "-"), mergedBy(t, writerSHA, tc.edit), "")
			h.settle()
			if c := h.cloudObjects(); (len(c) > 0) != tc.applied {
				t.Errorf("applied = %v (cloud %v), want %v; answer %d %q", len(c) > 0, c, tc.applied, code, answer)
			}
			switch {
			case tc.applied:
			case code == http.StatusOK:
				if answer != tc.says && !strings.HasPrefix(answer, tc.says) {
					t.Errorf("answer %q, want %q", answer, tc.says)
				}
				if !strings.Contains(h.logs(), "webhook ignored") {
					t.Errorf("the refusal was not logged:\n%s", h.logs())
				}
			default:
				if reply := h.lastBotComment(2); !strings.Contains(reply, tc.says) {
					t.Errorf("answer %d %q; reply lacks %q:\n%s", code, answer, tc.says, reply)
				}
				h.wantConversation(2, "merged-into-"+strings.ReplaceAll(tc.name, " ", "-"), headA) // nothing applied
			}
		})
	}
}

// TestLinearMergeIsJudgedByTheDefaultBranchsRules: a squash or rebase
// merge has one parent, which for a rebase is the pull request's own
// rebased commit. The merge commit's tree is the default branch before the
// merge plus the pull request's changes, so a rule file the pull request
// does not change is read there as the default branch had it. A rebase
// whose first commit loosened the rules (2 approvals → 1, the deny policy
// deleted) and whose last commit restored them is judged by the default
// branch's: refused with one approval. A pull request that does change a
// rule file (settings, a policy deleted), or lists as many files as GitHub
// shows at most, is refused when merged without a merge commit, saying how
// to finish; merged with one, it is judged at the first parent and
// applies. A squash merge that changes no settings or policy (a provider
// lock file is not read at the merge) applies as before.
func TestLinearMergeIsJudgedByTheDefaultBranchsRules(t *testing.T) {
	const (
		strict   = "apply: merge\nrequired-approvals: 2\n"
		loosened = "apply: merge\nrequired-approvals: 1\n"
		onMerge  = "apply: merge\n"
	)
	many := []string{"kyku.yaml"}
	for i := len(many); i < 3000; i++ {
		many = append(many, fmt.Sprintf("docs/page-%04d.md", i))
	}
	for _, tc := range []struct {
		name    string
		base    map[string]string // the default branch before the merge
		head    map[string]string // the pull request's head (beside configV2)
		files   []string          // the pull request's changed files
		parents []string          // the merge commit's
		// first is the pull request's first commit, rebased (with parents
		// rebasedOne): its rule files ("" for none).
		first   map[string]string
		applied bool
		says    []string
	}{
		{"a rebase whose first commit loosened the rules its last restored",
			map[string]string{".kyku/config.yaml": strict, botPolicyFile: botSizePolicy},
			map[string]string{".kyku/config.yaml": strict, botPolicyFile: botSizePolicy},
			[]string{"kyku.yaml"}, []string{rebasedOne},
			map[string]string{".kyku/config.yaml": loosened},
			false, []string{"merged without the 2 approvals of its final head commit", "(1 counted)"}},
		{"a squash that changes no rule file",
			map[string]string{".kyku/config.yaml": onMerge}, nil,
			[]string{"kyku.yaml"}, []string{baseSHA}, nil, true, nil},
		{"a squash that changes the settings",
			map[string]string{".kyku/config.yaml": onMerge},
			map[string]string{".kyku/config.yaml": onMerge + "# reviewed\n"},
			[]string{"kyku.yaml", ".kyku/config.yaml"}, []string{baseSHA}, nil,
			false, []string{"changes `.kyku/config.yaml` and was merged without a merge commit", "merge with a merge commit, or land rule changes in a pull request of their own"}},
		{"a squash that updates a provider lock file",
			map[string]string{".kyku/config.yaml": onMerge},
			map[string]string{".kyku.lock.hcl": "# providers\n"},
			[]string{"kyku.yaml", ".kyku.lock.hcl"}, []string{baseSHA}, nil, true, nil},
		{"the same pull request merged with a merge commit",
			map[string]string{".kyku/config.yaml": onMerge},
			map[string]string{".kyku/config.yaml": onMerge + "# reviewed\n"},
			[]string{"kyku.yaml", ".kyku/config.yaml"}, []string{baseSHA, headA}, nil, true, nil},
		{"a rebase that deletes a policy",
			map[string]string{".kyku/config.yaml": onMerge, botPolicyFile: "package kyku\n"},
			map[string]string{".kyku/config.yaml": onMerge},
			[]string{"kyku.yaml", botPolicyFile}, []string{rebasedOne}, map[string]string{".kyku/config.yaml": onMerge},
			false, []string{"changes `" + botPolicyFile + "` and was merged without a merge commit"}},
		{"a squash listing as many files as GitHub shows",
			map[string]string{".kyku/config.yaml": onMerge}, nil,
			many, []string{baseSHA}, nil,
			false, []string{"GitHub lists at most 3000 files", "was merged without a merge commit"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, harnessOpts{})
			h.seedTree(defaultBranch, tc.base)
			h.seedTree(baseSHA, tc.base)
			h.seedTree(headA, tc.head)
			h.gh.SetFile(repoName, headA, "kyku.yaml", []byte(configV2))
			merge := mergeSHA
			if tc.first != nil {
				merge = rebasedTwo
				h.seedTree(rebasedOne, tc.first)
				h.gh.AddCommit(repoName, githubtest.GitCommit{SHA: rebasedOne, Parents: []string{baseSHA}, Message: "tidy"})
			}
			h.gh.AddCommit(repoName, githubtest.GitCommit{SHA: merge, Parents: tc.parents, Message: "add worker (#2)"})
			// The merge commit's tree: the default branch before the merge
			// plus the pull request's changes.
			tree := maps.Clone(tc.base)
			for _, f := range tc.files {
				if data, ok := tc.head[f]; ok {
					tree[f] = data
				} else {
					delete(tree, f)
				}
			}
			h.seedTree(merge, tree)
			h.gh.SetFile(repoName, merge, "kyku.yaml", []byte(configV2))
			h.gh.AddPullRequest(repoName, githubtestPR{Number: 2, User: "author", HeadSHA: headA, HeadRef: "worker", Files: tc.files})
			h.planAndMerge(t, merge, "reviewer")
			if plan := h.lastBotComment(2); tc.first != nil && strings.Contains(plan, "changes the review rules") != (len(tc.files) > 1) {
				t.Fatalf("the plan comment flags the rule changes wrongly:\n%s", plan)
			}

			h.deliver("pull_request", mergedBy(t, merge, nil))
			h.settle()
			if c := h.cloudObjects(); (len(c) > 0) != tc.applied {
				t.Errorf("applied = %v (cloud %v), want %v; reply:\n%s", len(c) > 0, c, tc.applied, h.lastBotComment(2))
			}
			if tc.applied {
				return
			}
			reply := h.lastBotComment(2)
			for _, want := range tc.says {
				if !strings.Contains(reply, want) {
					t.Errorf("reply lacks %q:\n%s", want, reply)
				}
			}
			h.wantConversation(2, "linear-merge-"+strings.ReplaceAll(tc.name, " ", "-"), headA) // refused, nothing applied
		})
	}
}

// TestRebaseMergeCannotUnmarkASensitiveVariable: the default branch
// declares dbPass sensitive. A pull request's first commit redeclares it
// not sensitive, its last one puts dbPass in a tag; it is rebase-merged,
// so the merge commit's first parent is the first commit, rebased, and
// both say dbPass is no secret. Nothing the bot writes on the merge shows
// the value: what is sensitive for a squash or rebase merge is what any of
// the first parent, the merge commit and the payload's base.sha (the
// default branch) declares (config.TrustAll).
func TestRebaseMergeCannotUnmarkASensitiveVariable(t *testing.T) {
	const value = "value-a-rebase-cannot-unmark"
	declared := "variables:\n  dbPass: { type: string, sensitive: true, default: " + value + " }\n"
	tagged := configV2 + "  tagged:\n    type: Vm\n    properties: { image: debian-12, tags: { owner: \"${var.dbPass}\" } }\n"
	h := newHarness(t, harnessOpts{})
	base := map[string]string{".kyku/config.yaml": "apply: merge\n", "kyku.yaml": declared + configV1}
	h.seedTree(defaultBranch, nil)
	h.seedTree(baseSHA, nil)
	for _, ref := range []string{defaultBranch, baseSHA} {
		for f, data := range base {
			h.gh.SetFile(repoName, ref, f, []byte(data))
		}
	}
	unmarked := strings.Replace(declared, "sensitive: true, ", "", 1)
	h.gh.SetFile(repoName, headA, "kyku.yaml", []byte(unmarked+tagged))
	h.gh.SetFile(repoName, rebasedOne, ".kyku/config.yaml", []byte("apply: merge\n"))
	h.gh.SetFile(repoName, rebasedOne, "kyku.yaml", []byte(unmarked+configV1))
	h.gh.AddCommit(repoName, githubtest.GitCommit{SHA: rebasedOne, Parents: []string{baseSHA}, Message: "unmark"})
	h.gh.AddCommit(repoName, githubtest.GitCommit{SHA: rebasedTwo, Parents: []string{rebasedOne}, Message: "tag (#2)"})
	h.gh.SetFile(repoName, rebasedTwo, ".kyku/config.yaml", []byte("apply: merge\n"))
	h.gh.SetFile(repoName, rebasedTwo, "kyku.yaml", []byte(unmarked+tagged))
	h.gh.AddPullRequest(repoName, githubtestPR{Number: 2, User: "author", HeadSHA: headA, HeadRef: "worker", Files: []string{"kyku.yaml"}})
	h.planAndMerge(t, rebasedTwo, "reviewer")
	h.deliver("pull_request", mergedBy(t, rebasedTwo, nil))
	h.settle()
	comments := h.botComments(2)
	if len(comments) < 2 {
		t.Fatalf("want a plan and a merge reply, got %d comments", len(comments))
	}
	for _, c := range comments {
		if strings.Contains(c.Body, value) {
			t.Errorf("a comment shows the value the default branch declares sensitive:\n%s", c.Body)
		}
	}
	for _, r := range h.gh.CheckRuns(repoName) {
		if strings.Contains(r.Summary, value) {
			t.Errorf("a check run shows the sensitive value:\n%s", r.Summary)
		}
	}
}
