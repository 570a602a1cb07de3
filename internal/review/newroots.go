package review

import (
	"context"
	"errors"

	"github.com/kyku/action/internal/command"
	"github.com/kyku/action/internal/tfroots"
)

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

// CommentRootUse is what a `/kyku` command does with a root: `/kyku
// apply` applies, anything else plans.
func CommentRootUse(name command.Name) RootUse {
	if name == command.Apply {
		return RootApply
	}
	return RootPlan
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

// ErrNoRoot: there is no Terraform root at the directory at that commit.
var ErrNoRoot = errors.New("no Terraform root there")

// RootLoader loads one Terraform root as the commit ref has it, each
// front door in its own way (the Action installs its modules and passes
// its inputs' variables, the bot neither); its error wraps ErrNoRoot
// when ref has no root there.
type RootLoader func(ctx context.Context, ref string) (*tfroots.Loaded, error)

// RootRefs say where one use of a Terraform root reads what.
type RootRefs struct {
	Root string  // the root's directory, slash, from the repository's top
	Use  RootUse // what is done with it
	// Base is the commit whose backend block opens the state: the
	// default branch, or as it was before a merge.
	Base string
	// Head is the pull request's head ("" for a drift check), Merge the
	// merge commit (the merge's apply only).
	Head, Merge string
	// NewRoots: the repository's trusted settings allow a pull request
	// to add a root (terraform-new-roots: allow).
	NewRoots bool
	// RulesFrom names where NewRoots is written (Settings.RulesFrom),
	// for the refusal.
	RulesFrom string
}

// TrustedRoot is the root whose backend opens its state: as refs.Base
// has it, or, for a root Base lacks, as the commit NewRootRef names
// has it. A root Base lacks that no commit may stand in for is refused
// with a *NewRootError.
func TrustedRoot(ctx context.Context, load RootLoader, refs RootRefs) (*tfroots.Loaded, error) {
	l, err := load(ctx, refs.Base)
	if !errors.Is(err, ErrNoRoot) {
		return l, err
	}
	ref := NewRootRef(refs.NewRoots, refs.Use, refs.Head, refs.Merge)
	if ref == "" {
		return nil, &NewRootError{Root: refs.Root, RulesFrom: refs.RulesFrom}
	}
	return load(ctx, ref)
}

// NewRootError refuses a root the default branch lacks: it is
// ErrNoTrustedConfig (nothing is applied), said in a root's terms.
type NewRootError struct {
	Root      string
	RulesFrom string // where terraform-new-roots is written ("" names none)
}

func (e *NewRootError) Error() string {
	setting := "terraform-new-roots: allow"
	if e.RulesFrom != "" {
		setting += " in " + e.RulesFrom
	}
	return e.Root + ": the pull request adds this Terraform root, and where a root's state is is the default branch's to say: " +
		setting + " lets a pull request add one (its backend then planned, and applied by its merge only)"
}

func (e *NewRootError) Unwrap() error { return ErrNoTrustedConfig }
