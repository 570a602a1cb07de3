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
