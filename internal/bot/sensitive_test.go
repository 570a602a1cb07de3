package bot_test

import (
	"strings"
	"testing"
)

// TestBotKeepsTheDefaultBranchsSensitivity: the default branch declares
// dbPass sensitive; a pull request redeclares it not sensitive and puts it
// in a tag, and uses it as a forEach elsewhere. The plan comment and check
// run show the tag as (sensitive), never the value; the forEach is refused
// at its line and column.
func TestBotKeepsTheDefaultBranchsSensitivity(t *testing.T) {
	const value = "value-the-default-branch-keeps-sensitive"
	base := "variables:\n  dbPass: { type: string, sensitive: true, default: " + value + " }\n" + configV1
	pr := "variables:\n  dbPass: { type: string, default: " + value + " }\n" + configV1 +
		"  tagged:\n    type: Vm\n    properties: { image: debian-12, tags: { owner: \"${var.dbPass}\" } }\n"
	h := newHarness(t, harnessOpts{})
	h.gh.SetFile(repoName, defaultBranch, "kyku.yaml", []byte(base))
	h.gh.SetFile(repoName, headA, "kyku.yaml", []byte(pr))
	h.pr(2, headA)
	h.deliver("pull_request", prOpened(t, 2, headA))
	h.settle()
	run := h.checkRun(repoName)
	comment := h.lastBotComment(2)
	if run.Conclusion != "success" || !strings.Contains(comment, "+   tags: (sensitive)") {
		t.Errorf("check run %s, comment:\n%s\nwant a plan with the tag masked", run.Conclusion, comment)
	}
	for where, text := range map[string]string{"comment": comment, "check run": run.Summary} {
		if strings.Contains(text, value) {
			t.Errorf("the %s shows the default branch's sensitive value:\n%s", where, text)
		}
	}

	h.gh.SetFile(repoName, headB, "kyku.yaml", []byte("variables:\n  dbPass: { type: list, default: [a-"+value+"] }\n"+configV1+
		"  keyed:\n    type: SshKey\n    forEach: \"${var.dbPass}\"\n    properties: { publicKey: k }\n"))
	h.gh.SetFile(repoName, defaultBranch, "kyku.yaml", []byte("variables:\n  dbPass: { type: list, sensitive: true, default: [a-"+value+"] }\n"+configV1))
	h.gh.UpdatePullRequest(repoName, 2, func(p *githubtestPR) { p.HeadSHA = headB })
	h.deliver("pull_request", fixtureAction(t, prOpened(t, 2, headB), "synchronize"))
	h.settle()
	runs := h.gh.CheckRuns(repoName)
	last := runs[len(runs)-1]
	want := `kyku.yaml:9:14: resource "keyed": forEach cannot use variable "dbPass", which is sensitive (the default branch declares it sensitive)`
	if last.Conclusion != "failure" || !strings.Contains(last.Summary, want) || strings.Contains(last.Summary, value) {
		t.Errorf("check run %s:\n%s\nwant a failure saying %s", last.Conclusion, last.Summary, want)
	}
}
