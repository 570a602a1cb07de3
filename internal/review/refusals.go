package review

import (
	"fmt"
	"strings"
	"time"

	"github.com/kyku/action/internal/markdown"
)

// The texts of the refusals, one render function each, in the order Apply
// checks the requirements. Everything a user, a repository or the engine
// controls goes through code. testdata/refusals.golden holds every one.

// request is what a refusal says about the request it refuses.
type request struct {
	s       Settings
	number  int     // the pull request
	head    string  // its head commit
	trigger Trigger // what asked
	merge   string  // the merge queue's commit (TriggerMergeQueue)
}

// replan says how to get a plan that can be applied.
func (r request) replan() string {
	switch r.trigger {
	case TriggerMergeQueue:
		return "Nothing was applied, and the merge queue's check fails, so GitHub takes the pull request out of the queue. " +
			"Re-plan it (push, or comment " + code(commandFor("plan", r.s)) + "), have the plan reviewed and approved, then queue it again."
	case TriggerMerge:
		return "Nothing was applied. To finish: re-plan on the default branch (push to it, or run the workflow there), review the plan, then apply it."
	}
	return "Comment " + code(commandFor("plan", r.s)) + " to re-plan, review the new plan, then comment " + code(commandFor("apply", r.s)) + "."
}

// replanAfterError says how to go on after an error stopped the apply.
func (r request) replanAfterError() string {
	switch r.trigger {
	case TriggerMergeQueue:
		return "Fix the cause, then queue the pull request again."
	case TriggerMerge:
		return "Fix the cause, re-plan on the default branch, then apply."
	}
	return "Fix the cause, then comment " + code(commandFor("apply", r.s)) + " again."
}

func prName(number int) string { return "Pull request #" + itoa(number) }

// applyModeText: s's apply mode m does not let t apply; from names where
// the setting is written.
func applyModeText(m ApplyMode, from string, t Trigger) string {
	what := map[ApplyMode]string{
		ApplyOnComment: "on a comment only", ApplyOnMerge: "on merge only", ApplyOnBoth: "on a comment or on merge", ApplyInMergeQueue: "in the merge queue only",
	}[ApplyMode(m.String())]
	setting := code("apply: " + m.String())
	if from != "" {
		setting += " in " + from
	}
	head := "This repository applies " + what + " (" + setting + ")"
	switch {
	case t == TriggerComment:
		return head + ", not on a comment."
	case t == TriggerMerge && m == ApplyInMergeQueue:
		return head + ": the merge queue's check applied this change before it was merged, so its push is not applied again."
	case t == TriggerMerge:
		return head + ": a merge is not applied; " + code("/kyku apply") + " on the pull request applies it before the merge."
	case m.OnMerge():
		return head + ", not in the merge queue: the queue's commit is not applied here; the merge is applied when it is pushed."
	}
	return head + ", not in the merge queue: the queue's commit is not applied; " + code("/kyku apply") + " on the pull request applies it before it is queued."
}

// directPushText: a push to the default branch that merged no pull request.
func directPushText(sha string) string {
	return "no merged pull request for " + sha + ": only the merge of a pull request applies its reviewed plan; a direct push is not applied"
}

// queueBranchText: a merge group's branch that names no pull request.
// (The pattern is a code span: as text, markdown would take <base> for a
// tag and drop it.)
func queueBranchText(headRef string) string {
	return "merge group branch " + code(headRef) + " is not " + code("gh-readonly-queue/<base>/pr-<number>-<sha>")
}

// queueBaseText: a merge group whose branch names another base than the
// branch it merges into.
func queueBaseText(headRef, base string) string {
	return "merge group branch " + code(headRef) + " does not merge into " + code(base)
}

// queuePRBaseText: a merge group for a pull request based on another branch.
func queuePRBaseText(number int, prBase, base string) string {
	return prName(number) + " is based on " + code(prBase) + ", not on " + code(base) + ", the branch this merge group merges into."
}

func notMergedText(number int) string {
	return prName(number) + " is not merged: only a merged pull request's plan is applied on merge."
}

func alreadyMergedText(number int) string {
	return prName(number) + " is already merged: " + code("/kyku apply") + " applies the plan of an open pull request. " +
		"Re-plan on the default branch, then apply."
}

func closedText(number int, s Settings) string {
	return prName(number) + " is closed: reopen it, comment " + code(commandFor("plan", s)) + ", then " + code(commandFor("apply", s)) + "."
}

func forkText(number int, headRepo string) string {
	return prName(number) + " comes from a fork (" + code(headRepo) + "), and this repository does not plan or apply pull requests from forks: " +
		"anyone can open one. Push the branch to this repository and open the pull request from there."
}

func queueNotOpenText(number int) string {
	return prName(number) + " is not open, so the merge queue's commit is not applied for it."
}

func planNotOpenText(number int, state string) string {
	return prName(number) + " is " + state + ": only an open pull request is planned."
}

// ForkNotPlanned is what Kyku says about a pull request from a fork when
// the repository does not plan them (the default).
func ForkNotPlanned(number int, headRepo string) string {
	if headRepo == "" {
		headRepo = "a deleted repository"
	}
	return prName(number) + " comes from a fork (" + code(headRepo) + "), and this repository does not plan pull requests from forks: " +
		"anyone can open one, and a plan runs with this repository's credentials. " +
		"To have it planned, push its branch to this repository and open the pull request from there."
}

// ForkPlannedOnRequest is what Kyku says about a pull request from a fork
// when the repository plans them (allow-fork-prs): only on request.
func ForkPlannedOnRequest(number int, headRepo string, s Settings) string {
	if s.PlanPermission == "" {
		s.PlanPermission = DefaultPlanPermission
	}
	return prName(number) + " comes from a fork (" + code(headRepo) + "), so it is not planned on its own. " +
		"Someone with " + code(s.PlanPermission.String()) + " permission can comment " + code("/kyku plan") +
		" to plan it with this repository's credentials after reading its changes."
}

// headMovedText: the head moved from seen, the commit the /kyku apply
// comment was posted on, to now.
func headMovedText(number int, seen, now string, s Settings) string {
	return prName(number) + "'s head moved to " + code(sha7(now)) + " after the " + code("/kyku apply") +
		" comment, which was posted on " + code(sha7(seen)) + ": an apply applies the commit its commenter saw. " +
		"Review the plan of " + code(sha7(now)) + " and comment " + code(commandFor("apply", s)) + " again."
}

// layout writes the times of GitHub's clock in a refusal.
const layout = "2006-01-02 15:04:05 UTC"

// pushedAfterText: pull request number's head reached GitHub at arrived,
// not before the /kyku apply comment posted at commented (in its second,
// or after).
func pushedAfterText(number int, head string, arrived, commented time.Time, s Settings) string {
	return prName(number) + "'s head " + code(sha7(head)) + " reached GitHub at " + arrived.UTC().Format(layout) +
		", not before the " + code("/kyku apply") + " comment (" + commented.UTC().Format(layout) +
		"): an apply applies a commit its commenter could have seen. Review the plan of " + code(sha7(head)) +
		" and comment " + code(commandFor("apply", s)) + " again."
}

// branchPushedAfterText: pull request number's branch was pushed to at
// pushed, not before the /kyku apply comment posted at commented; its
// head is now head.
func branchPushedAfterText(number int, branch, head string, pushed, commented time.Time, s Settings) string {
	return prName(number) + "'s branch " + code(branch) + " was pushed to at " + pushed.UTC().Format(layout) +
		", not before the " + code("/kyku apply") + " comment (" + commented.UTC().Format(layout) +
		"); its head is " + code(sha7(head)) + ": an apply applies a commit its commenter could have seen. Review the plan of " +
		code(sha7(head)) + " and comment " + code(commandFor("apply", s)) + " again."
}

// forcePushedAfterText: pull request number's head branch was
// force-pushed at forced, not before the /kyku apply comment posted at
// commented; its head is now head.
func forcePushedAfterText(number int, head string, forced, commented time.Time, s Settings) string {
	return prName(number) + "'s branch was force-pushed at " + forced.UTC().Format(layout) +
		", not before the " + code("/kyku apply") + " comment (" + commented.UTC().Format(layout) +
		"), to " + code(sha7(head)) + ": an apply applies a commit its commenter could have seen. Review the plan of " +
		code(sha7(head)) + " and comment " + code(commandFor("apply", s)) + " again."
}

// forkPushesUnreadText: pull request number comes from the fork headRepo,
// whose activity (the pushes to branch) GitHub does not show this token.
func forkPushesUnreadText(number int, headRepo, branch string) string {
	return prName(number) + " comes from a fork (" + code(headRepo) + ") whose activity GitHub does not show this token, so Kyku cannot tell whether " +
		code(branch) + " was pushed to since the " + code("/kyku apply") + " comment. " +
		"Give Kyku read access to the fork, or push the branch to this repository and open the pull request from there."
}

// permissionText: user has level; command needs need.
func permissionText(user, level, command string, s Settings) string {
	need := s.ApplyPermission.String()
	if command == "plan" {
		need = s.PlanPermission.String()
	}
	return code(user) + " has " + code(level) + " permission on this repository; " +
		code("/kyku "+command) + " needs at least " + code(need) + ". Ask someone with " +
		code(need) + " permission to comment " + code(commandFor(command, s)) + "."
}

// noApprovalText: fewer approvals of the head count than required.
func noApprovalText(r request, ap approvals) string {
	sha := code(sha7(r.head))
	need := plural(r.s.RequiredApprovals, "approval")
	have := itoa(len(ap.counted))
	switch r.trigger {
	case TriggerMergeQueue:
		return prName(r.number) + " is in the merge queue without the " + need + " of its head commit " + sha +
			" this environment requires (" + have + " counted). " + approvalRule(r.s) + " " + ap.who() + " " + r.replan()
	case TriggerMerge:
		return prName(r.number) + " was merged without the " + need + " of its final head commit " + sha +
			" this environment requires (" + have + " counted). " + approvalRule(r.s) + " " + ap.who() +
			" Re-plan on the default branch, have the change approved, then apply."
	}
	return prName(r.number) + " needs " + need + " of its current head commit " + sha + " and has " + have + ". " +
		approvalRule(r.s) + " " + ap.who() +
		" Ask a reviewer to approve the current changes, then comment " + code(commandFor("apply", r.s)) + " again."
}

// Why an approval does not count (NotCounted.Why).
const (
	whyChangesRequested = "requested changes"
	whyDismissed        = "the review was dismissed"
	whyAuthor           = "is the author"
	whyBot              = "is a bot"
	whyPusher           = "authored or committed commits of this pull request"
)

func whyEarlierCommit(sha string) string { return "approved an earlier commit " + code(sha7(sha)) }

func whyTooManyCommits(max int) string {
	return fmt.Sprintf("the pull request has %d or more commits, and GitHub lists no more, so Kyku cannot tell who pushed them", max)
}

func whyPermission(level, need string) string {
	return "has " + code(level) + " permission; approvals need " + code(need)
}

// approvalRule says, for a reply, what counts as an approval.
func approvalRule(s Settings) string {
	return "An approval counts when it is the reviewer's latest decision, on the current head commit, by someone with at least " +
		code(s.ApproverPermission.String()) + " permission who is not the author, not a bot and did not author or commit any of its commits."
}

// who lists approvals for a reply: "Counted: `a`, `b`. Not counted: `c`
// (why); …".
func (ap approvals) who() string {
	counted := "none"
	if len(ap.counted) > 0 {
		var names []string
		for _, c := range ap.counted {
			names = append(names, code(c))
		}
		counted = strings.Join(names, ", ")
	}
	s := "Counted: " + counted + "."
	if len(ap.notCounted) > 0 {
		var parts []string
		for _, n := range ap.notCounted {
			parts = append(parts, code(n.Reviewer)+" ("+n.Why+")")
		}
		s += " Not counted: " + strings.Join(parts, "; ") + "."
	}
	return s
}

const noTrustedConfigText = "The default branch has no Kyku configuration yet, so there is no trusted backend to apply with: " +
	"a pull request's own backend is used for planning only, never to apply. " +
	"Merge the pull request that adds the configuration (the merge applies it, from the default branch), then apply later changes as usual."

// promotionText: environment earlier, before this one in the promotion
// order, has not applied the head; why says what was found.
func promotionText(r request, earlier, why string) string {
	order := make([]string, len(r.s.Promotion))
	for j, e := range r.s.Promotion {
		order[j] = code(e)
	}
	return "Environment " + code(earlier) + " has not applied commit " + code(sha7(r.head)) + " yet" + why + ": " +
		code(envName(r.s.Environment)) + " comes after it in the promotion order (" + strings.Join(order, " → ") + "). " +
		"Apply this pull request to " + code(earlier) + " first (" + code(commandFor("apply", Settings{Environment: earlier, Project: r.s.Project})) + "), then here."
}

// noPlanText: no plan was saved for the head.
func noPlanText(r request) string {
	sha := code(sha7(r.head))
	switch r.trigger {
	case TriggerMergeQueue:
		return "No plan for " + sha + ", the head of pull request #" + itoa(r.number) + ", was saved. " + r.replan()
	case TriggerMerge:
		return "No plan for " + sha + ", the final head of pull request #" + itoa(r.number) + ", was saved. " + r.replan()
	}
	return "No plan for " + sha + " (the pull request's current head): push or comment " + code(commandFor("plan", r.s)) +
		", review the plan, then comment " + code(commandFor("apply", r.s)) + "."
}

// commentEvidence is why Kyku's newest plan comment is no evidence of
// what was reviewed.
type commentEvidence int

const (
	commentNotRecorded commentEvidence = iota + 1 // no record of posting it
	commentBadRecord                              // the record is not Kyku's
	commentNotPosted                              // the newest comment is another than the one posted
	commentEdited                                 // edited after Kyku posted it
)

// commentFacts are what an evidence refusal says.
type commentFacts struct {
	why       commentEvidence
	key       string // the record's backend key
	url       string // the comment's
	id, ofRec int64  // the comment's ID and the recorded one
	editor    string // who edited it ("" unknown)
	at        time.Time
}

// commentText: Kyku's plan comment for the head is no evidence of what
// was reviewed.
func commentText(r request, f commentFacts) string {
	sha := code(sha7(r.head))
	switch f.why {
	case commentNotRecorded:
		return "Kyku has no record of posting the plan comment for " + sha + " (it keeps one in the backend beside the saved plan), " +
			"so it cannot tell whether the comment still shows what Kyku planned."
	case commentBadRecord:
		return "The record of the plan comment for " + sha + " (" + code(f.key) + ") is not one Kyku wrote."
	case commentNotPosted:
		return "Kyku's newest plan comment for " + code(envName(r.s.Environment)) + " is not the one it posted for " + sha +
			" (comment " + itoa64(f.id) + ", posted " + itoa64(f.ofRec) + "), so Kyku cannot tell what was shown for review."
	}
	who, at := "someone", ""
	if f.editor != "" {
		who = code(f.editor)
	}
	if !f.at.IsZero() {
		at = " at " + f.at.UTC().Format("2006-01-02 15:04:05 UTC")
	}
	return markdown.Link("Kyku's plan comment", f.url) + " for " + sha + " was edited by " + who + at + ", after Kyku posted it: what reviewers read may not be what Kyku planned, " +
		"so it is no evidence of what was reviewed."
}

// planMismatch is why the fresh plan is not the reviewed one.
type planMismatch int

const (
	savedUnusable  planMismatch = iota + 1 // the saved plan does not decode or digest
	queueConfig                            // the queue's commit holds another configuration
	savedAltered                           // the saved plan's configuration is not the head's
	expandedOther                          // the head's expands otherwise with today's state and data sources
	savedStale                             // the state moved on since it was planned
	savedDiffers                           // a fresh plan makes other changes
	shownMissing                           // Kyku's plan comment is gone
	shownNoPlan                            // it shows a failed plan
	shownOtherHead                         // it is for another commit
	shownOtherPlan                         // it shows another digest
)

// mismatchFacts are what a mismatch refusal says.
type mismatchFacts struct {
	why                 planMismatch
	detail              string // savedUnusable: the error
	moved               string // savedStale: how the state moved (movedText)
	digest, savedDigest string // the fresh plan's, the saved plan's
	shownHead, shown    string // the comment's head and digest
}

// mismatchText: the fresh plan of the head may not be applied; the reply
// shows it for review.
func mismatchText(r request, f mismatchFacts) string {
	sha := code(sha7(r.head))
	switch f.why {
	case savedUnusable:
		return "The saved plan for " + sha + " cannot be used (" + code(f.detail) + ")."
	case queueConfig:
		return "The merge queue's commit " + code(sha7(r.merge)) + " does not hold the configuration reviewed at " + sha +
			": the pull request's changes combined with the branch it is merged into are not what was planned and reviewed."
	case savedAltered:
		return "The saved plan for " + sha + " was not made from the configuration at that commit: " +
			"its embedded configuration does not hash to the configuration at " + sha + ", so it was altered after it was planned."
	case expandedOther:
		return "The configuration at " + sha + " expands otherwise than when it was planned: a `count`, `for_each` or import `id` reads " +
			"state or a data source whose value changed since, so applying it would make changes nobody reviewed."
	case savedStale:
		return "The saved plan for " + sha + " is a stale plan: " + f.moved + ", and a fresh plan of that commit against the current state " +
			"makes other changes (digest " + code(f.digest) + ", the saved one " + code(f.savedDigest) + ")."
	case savedDiffers:
		return "The saved plan for " + sha + " does not match a fresh plan of that commit against the current state " +
			"(digest " + code(f.digest) + ", the saved one " + code(f.savedDigest) + "): the cloud changed since it was planned, or the saved plan was altered."
	case shownMissing:
		return "Kyku's plan comment for " + code(envName(r.s.Environment)) + " is missing from the pull request, so Kyku cannot tell what was shown for review."
	case shownNoPlan:
		return "Kyku's latest plan comment shows no plan (the last plan failed)."
	case shownOtherHead:
		return "Kyku's latest plan comment is for commit " + code(sha7(f.shownHead)) + ", not for the current head " + sha + "."
	}
	return "The plan shown for review in Kyku's comment (digest " + code(f.shown) + ") is not the plan of " + sha +
		" against the current state (digest " + code(f.digest) + "): the state or the cloud changed since the review."
}

// movedText says how the state moved on since a plan: it was planned
// before any state existed, the state's lineage or its serial changed
// ("" when none of these).
func movedText(existedThen, existsNow bool, lineageThen, lineageNow string, serialThen, serialNow int64) string {
	switch {
	case !existedThen && existsNow:
		return "it was planned before any state existed, and a state has been written since"
	case lineageThen != lineageNow:
		return "the state was replaced (lineage " + code(lineageNow) + ", plan was for " + code(lineageThen) + ")"
	case serialThen != serialNow:
		return "state serial is " + fmt.Sprint(serialNow) + ", plan was for " + fmt.Sprint(serialThen)
	}
	return ""
}

// policyText: the policies block the plan (rep.Error: they could not be
// evaluated) and no policy owner approved.
func policyText(r request, rep policyBlock, ap approvals) string {
	var b strings.Builder
	if rep.err != "" {
		b.WriteString("The policies could not be evaluated, which blocks an apply like a denial:\n\n" + fenced(rep.err) + "\n")
	} else {
		b.WriteString("The policies deny this plan:\n\n")
		for i, m := range rep.deny {
			if i == 20 {
				b.WriteString("- …and " + itoa(len(rep.deny)-i+rep.more) + " more\n")
				break
			}
			b.WriteString("- " + code(m) + "\n")
		}
		if rep.more > 0 && len(rep.deny) <= 20 {
			b.WriteString("- …and " + itoa(rep.more) + " more\n")
		}
		b.WriteString("\n")
	}
	if len(r.s.PolicyOwners) == 0 {
		b.WriteString("No policy owners are set (`policy-owners`), so only a change to the configuration or to the policies on the default branch unblocks it.")
		return b.String()
	}
	var names []string
	for _, o := range r.s.PolicyOwners {
		names = append(names, code(o))
	}
	b.WriteString("A policy owner (" + strings.Join(names, ", ") + ") can override it by approving the head commit " +
		code(sha7(r.head)) + "; the override is recorded in the audit record. " + ap.who())
	return b.String()
}

// policyBlock is what a policy refusal lists.
type policyBlock struct {
	err  string   // why the policies could not be evaluated
	deny []string // the denials listed
	more int      // denials beyond those
}

// destroyAllText: the plan destroys every resource (n) and this request
// carries no --allow-destroy-all.
func destroyAllText(r request, n int) string {
	what := "The plan of " + code(sha7(r.head)) + " destroys every resource in " + code(envName(r.s.Environment)) +
		" (" + plural(n, "resource") + "): its configuration has no resources."
	word := code(commandFor("apply", r.s) + " --allow-destroy-all")
	switch r.trigger {
	case TriggerMergeQueue:
		return what + " The merge queue never applies such a plan, so its check fails. If that is what you want, comment " + word +
			" on the pull request before queueing it; otherwise restore the configuration."
	case TriggerMerge:
		return what + " A merge never applies such a plan. If that is what you want, destroy the environment explicitly (`kyku destroy`); " +
			"otherwise restore the configuration on the default branch."
	}
	return what + " If it was emptied or truncated by mistake, fix it and push again. If you mean it, comment " + word + "."
}

// staleText: the engine refused the fresh plan as stale (why, scrubbed)
// while it was being checked.
func staleText(r request, why string) string {
	return "The plan for " + code(sha7(r.head)) + " is a " + why + " (another apply ran while it was being checked). " + r.replan()
}

// The merge-rules refusals (CheckMergeRules).

const mergeFinish = "Re-plan on the default branch, review the plan, then apply it."

// mergedElsewhereText: the pull request was merged into base, not the
// default branch def.
func mergedElsewhereText(number int, base, def string) string {
	into := code(base)
	if base == "" {
		into = "a branch GitHub does not name"
	}
	return prName(number) + " was merged into " + into + ", not the default branch " + code(def) +
		": only a merge into the default branch is applied (any writer can push a branch with rules of its own). " + mergeFinish
}

// unknownRulesText: the front door cannot tell where its rules came from;
// missing says what it lacks.
func unknownRulesText(missing string) string {
	return missing + ", so Kyku cannot tell whether the rules judging this merge are the pull request's own. " + mergeFinish
}

const mergeCommitUnknownText = "Kyku does not know the commit the merge was made on, so it cannot read the rules from before it. " + mergeFinish

// Why a squash or rebase merge's rules cannot be told, and how to finish.
const (
	linearWhy = " was merged without a merge commit (a squash or a rebase merge): Kyku cannot tell which rules judged it, " +
		"since a rebase merge's parent is the pull request's own commit, whose rules may be the pull request's."
	linearFinish = " To apply it, re-plan on the default branch, review the plan, then apply it; next time, " +
		"merge with a merge commit, or land rule changes in a pull request of their own."
)

// tooManyFilesText: a squash or rebase merge of a pull request whose
// changed files GitHub does not list in full.
func tooManyFilesText(number int) string {
	return "GitHub lists at most " + itoa(MaxListedFiles) + " files of a pull request, so Kyku cannot tell whether pull request #" + itoa(number) +
		" changes a rule file, and it" + linearWhy + linearFinish
}

// linearMergeText: a squash or rebase merge of a pull request that
// changes the rule file file.
func linearMergeText(number int, file string) string {
	return prName(number) + " changes " + code(file) + " and" + linearWhy + linearFinish
}

// ownRulesText: the commit the rules were read at (a merge commit's
// first parent) already holds the pull request's file (gone: lacks it, as
// the pull request does).
func ownRulesText(file, at string, gone bool) string {
	holds := "already holds this pull request's " + code(file)
	if gone {
		holds = "already lacks " + code(file) + ", as this pull request does"
	}
	return "The default branch before this merge (commit " + code(sha7(at)) + ", the merge commit's first parent) " + holds +
		", so the rules there are the pull request's own: a pull request is never judged by the rules it brings. " +
		"To finish this one, re-plan on the default branch, review the plan, then apply it."
}

// unreadableRulesText: the rule file is not at the commit the rules were
// read at.
func unreadableRulesText(file, at string) string {
	return "Kyku cannot read " + code(file) + " at " + code(sha7(at)) + ", where the rules judging this merge come from, " +
		"so it cannot tell whether they are the pull request's own. " + mergeFinish
}

// changesRulesText: the merge changes the rule file file; role says what
// it is to the rules.
func changesRulesText(file, role string) string {
	if role == "" {
		role = "which holds review rules, and the rules judging this merge would be the pull request's"
	}
	return "This merge changes " + code(file) + ", " + role + ". A pull request is never judged by the rules it brings; its rules apply from the next pull request. " +
		"To apply this one, re-plan on the default branch (its rules are now these), review the plan, then apply it."
}
