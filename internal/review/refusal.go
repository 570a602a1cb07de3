package review

// Requirement is a rule a request must meet; a Refusal names the one
// that failed.
type Requirement int

// The requirements, in the order Apply checks them.
const (
	RequireApplyMode     Requirement = iota + 1 // the apply mode lets this trigger apply
	RequireMergedPR                             // a push merged a pull request (a direct push is not applied)
	RequireMergeGroup                           // the merge group's branch names its pull request and base
	RequirePullRequest                          // the pull request is open (on merge: merged), and not from a fork unless allowed
	RequireSeenHead                             // a command applies the head its commenter saw: the head did not move since
	RequireMergeRules                           // a merge is judged by the rules from before it
	RequirePermission                           // who asks has the permission the command needs
	RequireApprovals                            // enough approvals of the current head count
	RequireTrustedConfig                        // the default branch has a configuration to open the backend with
	RequirePromotion                            // every earlier environment applied the head
	RequireSavedPlan                            // a plan was saved for the head
	RequireReviewedPlan                         // the fresh plan is the saved one and the one Kyku's untouched comment shows
	RequirePolicy                               // the policies pass, or a policy owner approved
	RequireDestroyAll                           // a plan destroying everything carries the explicit word
	RequireCurrentState                         // the state did not move on while the plan was checked
)

var requirementNames = [...]string{
	RequireApplyMode: "apply-mode", RequireMergedPR: "merged-pull-request", RequireMergeGroup: "merge-group",
	RequirePullRequest: "pull-request", RequireSeenHead: "seen-head", RequireMergeRules: "merge-rules", RequirePermission: "permission",
	RequireApprovals: "approvals", RequireTrustedConfig: "trusted-config", RequirePromotion: "promotion",
	RequireSavedPlan: "saved-plan", RequireReviewedPlan: "reviewed-plan", RequirePolicy: "policy",
	RequireDestroyAll: "destroy-all", RequireCurrentState: "current-state",
}

func (r Requirement) String() string {
	if r > 0 && int(r) < len(requirementNames) {
		return requirementNames[r]
	}
	return "unknown"
}

// Refusal is a failed requirement: which, and what Kyku tells the user
// (markdown, one paragraph or a few, saying how to go on). A refusal is
// not an error: nothing was done, and the user can fix it.
type Refusal struct {
	Requirement Requirement
	Message     string
}

// String is the message; "" for no refusal (nil), so that callers and
// tests read a refusal that may be absent without a check.
func (r *Refusal) String() string {
	if r == nil {
		return ""
	}
	return r.Message
}

// refusal is a Refusal of req saying msg.
func refusal(req Requirement, msg string) *Refusal { return &Refusal{Requirement: req, Message: msg} }
