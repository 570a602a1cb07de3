package bot

import (
	"context"
	"errors"

	"github.com/kyku/action/internal/bot/settings"
	"github.com/kyku/action/internal/review"
	"github.com/kyku/action/internal/tfroots"
)

// A Terraform root the default branch lacks (a pull request adds it)
// follows review.NewRootRef, the Action's rule: refused unless the
// default branch's settings say terraform-new-roots: allow; then a plan
// opens the state where the pull request's head says (the operator's
// policy judging that place as any root's), a `/kyku apply` is refused,
// and only the merge applies it, with the merge commit's backend, which
// must be the reviewed head's (tfroots.Guard in rootOpener).

// trusted is the root whose backend opens its state: at base (the
// default branch, or as it was before a merge), or, for a root base
// lacks, at the commit review.NewRootRef names for use under s; nil, and
// no error, when no commit may stand in: opening the state then refuses,
// saying why (newRootError).
func (t *rootTrees) trusted(ctx context.Context, s *settings.Settings, root, base string, use review.RootUse, head, merge string) (*tfroots.Loaded, error) {
	l, err := t.load(ctx, base, root)
	if !errors.Is(err, errNoRoot) {
		return l, err
	}
	ref := review.NewRootRef(s.NewRoots, use, head, merge)
	if ref == "" {
		return nil, nil
	}
	return t.load(ctx, ref, root)
}

// newRootError refuses a root the default branch lacks: it is
// review.ErrNoTrustedConfig (nothing is applied), said in a root's terms.
type newRootError string

func (e newRootError) Error() string {
	return string(e) + ": the pull request adds this Terraform root, and where a root's state is is the default branch's to say: " +
		"terraform-new-roots: allow in the bot's settings on the default branch lets a pull request add one (its backend then planned, and applied by its merge only)"
}

func (e newRootError) Unwrap() error { return review.ErrNoTrustedConfig }
