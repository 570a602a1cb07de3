package bot

import (
	"context"
	"errors"

	"github.com/kyku/action/internal/bot/settings"
	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/review"
	"github.com/kyku/action/internal/tfroots"
)

// A Terraform root the default branch lacks (a pull request adds it)
// follows review.TrustedRoot, the Action's rule: refused unless the
// default branch's settings say terraform-new-roots: allow; then a plan
// opens the state where the pull request's head says (the operator's
// policy judging that place as any root's), a `/kyku apply` is refused,
// and only the merge applies it, with the merge commit's backend, which
// must be the reviewed head's (tfroots.Guard in rootOpener).

// rootTrust is a root's trusted configuration, whose backend opens its
// state; or, for a root the default branch lacks that no commit may
// stand in for, the refusal (review.NewRootError) that the plan still
// reaches, and opening the state answers with.
type rootTrust struct {
	l       *tfroots.Loaded
	refused error
}

// rootRefs say where root's use reads what under the default branch's
// settings s: base is the default branch, or as it was before a merge.
func rootRefs(s *settings.Settings, root string, use review.RootUse, base, head, merge string) review.RootRefs {
	return review.RootRefs{Root: root, Use: use, Base: base, Head: head, Merge: merge, NewRoots: s.NewRoots, RulesFrom: rulesFrom}
}

// trusted is the root whose backend opens its state (review.TrustedRoot).
func (t *rootTrees) trusted(ctx context.Context, refs review.RootRefs) (rootTrust, error) {
	l, err := review.TrustedRoot(ctx, func(ctx context.Context, ref string) (*tfroots.Loaded, error) {
		return t.load(ctx, ref, refs.Root)
	}, refs)
	if refused := (*review.NewRootError)(nil); errors.As(err, &refused) {
		return rootTrust{refused: refused}, nil
	}
	return rootTrust{l: l}, err
}

// config is the trusted configuration; nil for a refused new root.
func (tr rootTrust) config() *config.Config {
	if tr.l == nil {
		return nil
	}
	return tr.l.Config
}
