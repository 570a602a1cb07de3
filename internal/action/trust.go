package action

import "strings"

// trustRef is where this run reads the variable declarations that decide
// what is sensitive (sources.trustRef): on a push to the default branch (a
// merge), the default branch as it was before it (the push's "before"
// commit), as the policies; on schedule and a workflow_dispatch for no pull
// request none (the checkout is the default branch); otherwise the default
// branch's tip. A
// pull request's own declarations can then make a variable sensitive,
// never the reverse, and every value given outside the files that the
// default branch does not declare is sensitive.
func (r *run) trustRef() string {
	if r.checkoutIsDefault() {
		return ""
	}
	switch r.ghctx.EventName {
	case "push":
		branch, _ := strings.CutPrefix(r.ev.Ref, "refs/heads/")
		if b := r.ev.Before; branch == r.defaultBranch() && b != "" && strings.Trim(b, "0") != "" {
			return b
		}
	}
	return r.defaultBranch()
}

// mayRunPullRequestConfig reports whether the configuration this run
// plans or applies may be one nobody reviewed into the default branch: a
// pull request's (its event, a comment, a dispatch or the merge queue for
// it) or a push to another branch. A push to the default branch and a run
// on its checkout (schedule, a dispatch for no pull request) run what was
// merged.
func (r *run) mayRunPullRequestConfig() bool {
	if r.checkoutIsDefault() {
		return false
	}
	if r.ghctx.EventName == "push" {
		branch, _ := strings.CutPrefix(r.ev.Ref, "refs/heads/")
		return branch != r.defaultBranch()
	}
	return true
}
