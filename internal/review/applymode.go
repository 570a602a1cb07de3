package review

// ApplyMode says what applies a pull request's reviewed plan: the one
// setting both front doors read (the bot's `apply:` in .kyku/config.yaml,
// the Action's input apply), decided here.
type ApplyMode string

// The apply modes. The zero value is ApplyOnBoth.
const (
	ApplyOnComment    ApplyMode = "comment"     // `/kyku apply` on the pull request
	ApplyOnMerge      ApplyMode = "merge"       // the merge: the push of its commit to the default branch
	ApplyOnBoth       ApplyMode = "both"        // either
	ApplyInMergeQueue ApplyMode = "merge-queue" // the merge queue's check, before the merge
)

// ApplyModes are the modes, in the order messages list them.
var ApplyModes = []ApplyMode{ApplyOnComment, ApplyOnMerge, ApplyOnBoth, ApplyInMergeQueue}

func (m ApplyMode) String() string {
	if m == "" {
		return string(ApplyOnBoth)
	}
	return string(m)
}

// OnComment reports whether `/kyku apply` applies.
func (m ApplyMode) OnComment() bool { return m == "" || m == ApplyOnBoth || m == ApplyOnComment }

// OnMerge reports whether the merge of a pull request (its push to the
// default branch) applies.
func (m ApplyMode) OnMerge() bool { return m == "" || m == ApplyOnBoth || m == ApplyOnMerge }

// InMergeQueue reports whether the merge queue's check applies.
func (m ApplyMode) InMergeQueue() bool { return m == ApplyInMergeQueue }

// ParseApplyMode reads a mode by its name; ok is false for anything else.
func ParseApplyMode(s string) (m ApplyMode, ok bool) {
	for _, m := range ApplyModes {
		if s == string(m) {
			return m, true
		}
	}
	return "", false
}

// Trigger is what asked for an apply (an audit record's trigger).
type Trigger string

// The triggers.
const (
	TriggerComment    Trigger = "comment"     // a /kyku apply comment
	TriggerMerge      Trigger = "merge"       // the merge of the pull request
	TriggerMergeQueue Trigger = "merge-queue" // the merge queue's check
)

// applies reports whether m lets t apply.
func (m ApplyMode) applies(t Trigger) bool {
	switch t {
	case TriggerComment:
		return m.OnComment()
	case TriggerMerge:
		return m.OnMerge()
	case TriggerMergeQueue:
		return m.InMergeQueue()
	}
	return false
}

// ApplyModeRefusal says why s's apply mode does not let t apply (nil
// when it does). The front doors call it before anything else for a
// merge or the merge queue (a comment's is Comment's own); what the
// refusal says names where the setting is (Settings.RulesFrom).
func ApplyModeRefusal(s Settings, t Trigger) *Refusal {
	if s.Apply.applies(t) {
		return nil
	}
	return &Refusal{Requirement: RequireApplyMode, Message: applyModeText(s.Apply, s.RulesFrom, t)}
}
