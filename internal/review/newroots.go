package review

// A Terraform root the default branch lacks has no trusted backend block:
// where its state is would be the pull request's word. One rule for the
// Action (input terraform-new-roots) and the bot (its settings'
// terraform-new-roots, read from the default branch): such a root is
// refused unless the repository's trusted settings allow new roots; then
// a plan opens the state where the pull request's head says (and its
// plan comment shows it), a comment's apply is refused, and only the
// merge applies it, with the merge commit's backend, which the front door
// holds to the reviewed head's (tfroots.Guard). A drift check reads the
// default branch's roots only.

// RootUse is what a use case does with a Terraform root.
type RootUse int

const (
	RootPlan  RootUse = iota // a pull request's plan, or `/kyku plan`
	RootApply                // `/kyku apply`
	RootMerge                // the merge's apply
	RootDrift                // the scheduled drift check
)

func (u RootUse) String() string {
	switch u {
	case RootPlan:
		return "plan"
	case RootApply:
		return "apply"
	case RootMerge:
		return "merge"
	case RootDrift:
		return "drift"
	}
	return "unknown"
}

// NewRootRef is the commit whose own backend block opens the state of a
// root the default branch lacks, for use: head (the pull request's head)
// for a plan, merge (the merge commit) for the merge's apply; "" when
// none may, because new roots are not allowed or use never opens a new
// root's state.
func NewRootRef(allow bool, use RootUse, head, merge string) string {
	if !allow {
		return ""
	}
	switch use {
	case RootPlan:
		return head
	case RootMerge:
		return merge
	}
	return ""
}
