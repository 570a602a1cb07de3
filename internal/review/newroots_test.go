package review

import "testing"

// TestNewRootRef: a root the default branch lacks is opened with the pull
// request's own backend only when new roots are allowed, and then only
// for a plan (the head's) and the merge's apply (the merge commit's);
// never for a comment's apply or a drift check.
func TestNewRootRef(t *testing.T) {
	const head, merge = "head", "merge"
	tests := []struct {
		allow bool
		use   RootUse
		want  string
	}{
		{false, RootPlan, ""},
		{false, RootApply, ""},
		{false, RootMerge, ""},
		{false, RootDrift, ""},
		{true, RootPlan, head},
		{true, RootApply, ""},
		{true, RootMerge, merge},
		{true, RootDrift, ""},
	}
	for _, tt := range tests {
		if got := NewRootRef(tt.allow, tt.use, head, merge); got != tt.want {
			t.Errorf("NewRootRef(allow %v, %s) = %q, want %q", tt.allow, tt.use, got, tt.want)
		}
	}
}
