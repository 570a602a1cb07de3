package action

import (
	"context"
	"errors"

	"github.com/kyku/action/internal/command"
	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/github"
	"github.com/kyku/action/internal/review"
)

// planRoot plans Terraform root root of pull request number at head:
// the state opened where the default branch's backend says (a refusal,
// shown as the root's failed plan, when the pull request moves it).
func (r *run) planRoot(ctx context.Context, number int, head, root string) int {
	l, err := r.loadRoot(ctx, head, root)
	if err != nil {
		return r.fail(err)
	}
	refs := r.rootRefs(root, review.RootPlan, head, "")
	var trusted *config.Config
	switch t, err := r.trustedRoot(ctx, refs); {
	case errors.Is(err, review.ErrNoTrustedConfig):
		// Planned with no trusted configuration: opening the state
		// refuses, and the root's plan comment says why.
	case err != nil:
		return r.fail(err)
	default:
		trusted = t.Config
	}
	out, err := review.Plan(ctx, r.rootDeps(refs), review.PlanRequest{
		Settings: r.rootSettings(root), Number: number, HeadSHA: head, Config: l.Config, Trusted: trusted,
	})
	if err != nil {
		return r.fail(err)
	}
	r.reportPolicy(ctx, out, head)
	return r.planned(out)
}

// applyMergedRoot applies the reviewed plan of root of pull request pr,
// which the push merged, on the state the default branch's backend from
// before the merge names.
func (r *run) applyMergedRoot(ctx context.Context, pr *github.PR, root string) int {
	refs := r.rootRefs(root, review.RootMerge, pr.HeadSHA, r.ev.After)
	out, err := review.Apply(ctx, r.rootDeps(refs), review.ApplyRequest{
		Settings: r.rootSettings(root), Number: pr.Number, Commenter: r.ev.Sender.Login, OnMerge: true, MergeSHA: r.ev.After,
	})
	return r.applied(out, err, true)
}

// commentRoots are the pull request a `/kyku` comment is on and the
// Terraform roots it touches (none for a comment holding no command).
func (r *run) commentRoots(ctx context.Context, ev review.CommentEvent) (*github.PR, []string, error) {
	if !r.in.TerraformRoots || !ev.IsPR || ev.Action != "created" || ev.AuthorIsBot {
		return nil, nil, nil
	}
	if _, ok := command.Parse(ev.Body); !ok {
		return nil, nil, nil
	}
	pr, err := r.repo.PullRequest(ctx, ev.Number)
	if err != nil {
		return nil, nil, err
	}
	roots, err := r.touchedRoots(ctx, ev.Number, pr.HeadSHA)
	return pr, roots, err
}

// commentRefs say where a comment's use case reads root: a root the
// default branch lacks may be planned (input terraform-new-roots:
// allow), never applied by a comment (only its merge applies it).
func (r *run) commentRefs(ev review.CommentEvent, pr *github.PR, root string) review.RootRefs {
	cmd, _ := command.Parse(ev.Body)
	return r.rootRefs(root, review.CommentRootUse(cmd.Name), pr.HeadSHA, "")
}

// driftRoot checks Terraform root root for drift, its state where the
// default branch's backend says.
func (r *run) driftRoot(ctx context.Context, root string) int {
	refs := r.rootRefs(root, review.RootDrift, "", "")
	l, err := r.trustedRoot(ctx, refs)
	if err != nil {
		return r.fail(err)
	}
	return r.driftWith(ctx, r.rootDeps(refs), r.rootSettings(root), l.Config)
}

// projectEnv names a project's environment in the log.
func projectEnv(project, env string) string {
	if project == "" {
		return envName(env)
	}
	return project + " (" + envName(env) + ")"
}
