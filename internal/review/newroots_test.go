package review

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/command"
	"github.com/kyku/action/internal/tfroots"
)

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

// TestTrustedRoot: a root is opened with the base's backend when the
// base has it; a root the base lacks with the commit NewRootRef names,
// else refused in one line naming the root and where
// terraform-new-roots is written (ErrNoTrustedConfig: nothing applied);
// any other failure to load the base's root is that failure.
func TestTrustedRoot(t *testing.T) {
	broken := errors.New("read the repository at base: 502")
	trees := map[string]map[string]error{ // ref → root → its load's error (nil: there)
		"base":  {"infra/net": nil, "infra/broken": broken},
		"head":  {"infra/net": nil, "infra/new": nil},
		"merge": {"infra/net": nil, "infra/new": nil},
	}
	load := func(root string) RootLoader {
		return func(_ context.Context, ref string) (*tfroots.Loaded, error) {
			err, ok := trees[ref][root]
			switch {
			case !ok:
				return nil, fmt.Errorf("%s at %s: %w", root, ref, ErrNoRoot)
			case err != nil:
				return nil, err
			}
			return &tfroots.Loaded{Root: root, Top: ref}, nil
		}
	}
	const refused = "infra/new: the pull request adds this Terraform root, and where a root's state is is the default branch's to say: " +
		"terraform-new-roots: allow in the workflow's inputs lets a pull request add one (its backend then planned, and applied by its merge only)"
	tests := []struct {
		root    string
		use     RootUse
		allow   bool
		wantRef string // the commit whose root came back ("" none)
		wantErr string
	}{
		{"infra/net", RootPlan, false, "base", ""},
		{"infra/net", RootMerge, true, "base", ""},
		{"infra/net", RootDrift, false, "base", ""},
		{"infra/new", RootPlan, false, "", refused},
		{"infra/new", RootPlan, true, "head", ""},
		{"infra/new", RootApply, true, "", refused},
		{"infra/new", RootMerge, true, "merge", ""},
		{"infra/new", RootMerge, false, "", refused},
		{"infra/new", RootDrift, true, "", refused},
		{"infra/broken", RootPlan, true, "", broken.Error()},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s %s allow %v", tt.root, tt.use, tt.allow), func(t *testing.T) {
			refs := RootRefs{Root: tt.root, Use: tt.use, Base: "base", Head: "head", Merge: "merge", NewRoots: tt.allow, RulesFrom: "the workflow's inputs"}
			l, err := TrustedRoot(t.Context(), load(tt.root), refs)
			gotRef, gotErr := "", ""
			if l != nil {
				gotRef = l.Top
			}
			if err != nil {
				gotErr = err.Error()
			}
			if diff := cmp.Diff([2]string{tt.wantRef, tt.wantErr}, [2]string{gotRef, gotErr}); diff != "" {
				t.Errorf("TrustedRoot (-want +got, [ref, error]):\n%s", diff)
			}
			if tt.wantErr == refused && !errors.Is(err, ErrNoTrustedConfig) {
				t.Errorf("the refusal %v is not ErrNoTrustedConfig", err)
			}
		})
	}
}

// TestCommentRootUse: `/kyku apply` applies a root, any other command
// plans it.
func TestCommentRootUse(t *testing.T) {
	for name, want := range map[command.Name]RootUse{command.Apply: RootApply, command.Plan: RootPlan, command.Help: RootPlan} {
		if got := CommentRootUse(name); got != want {
			t.Errorf("CommentRootUse(%s) = %s, want %s", name, got, want)
		}
	}
}
