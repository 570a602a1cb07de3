package action

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kyku/action/internal/github"
	"github.com/kyku/action/internal/tfroots"
)

// A run acts on several projects when a pull request touches Terraform
// roots (roots.go): kyku.yaml when the repository has one, then each
// root. Each is handled as the one project of a run is (its own plan
// comment, saved plan, apply reply, drift issue); the run reports them
// together: outputs added up (plan-file the directory of their plan.json
// files), the job summary each one's in turn, the exit code the worst.

// target is one project of a run: kyku.yaml, or a Terraform root.
type target struct {
	yaml bool
	root string // slash, from the repository's top
}

func (t target) project() string {
	if t.yaml {
		return ""
	}
	return tfroots.Project(t.root)
}

// eachTarget runs handle for every target and reports them together.
func (r *run) eachTarget(targets []target, handle func(t target) int) int {
	code := ExitOK
	var summaries []string
	for _, t := range targets {
		r.reporting, r.summary = t.project(), ""
		code = max(code, handle(t))
		if r.summary != "" {
			summaries = append(summaries, r.summary)
		}
	}
	r.reporting = ""
	r.summary = strings.Join(summaries, "\n\n---\n\n")
	return code
}

// withYAML is targets with kyku.yaml first, when the repository has it
// at one of refs.
func (r *run) withYAML(ctx context.Context, roots []string, refs ...string) []target {
	var out []target
	for _, ref := range refs {
		if files, err := r.filesAt(ctx, ref); err == nil {
			if _, err := pick(files, r.src.path, ref); err == nil {
				out = append(out, target{yaml: true})
				break
			}
		}
	}
	for _, root := range roots {
		out = append(out, target{root: root})
	}
	return out
}

// noYAML reports whether, with Terraform roots on, the repository has no
// kyku.yaml at any of refs: a pull request touching no root then has
// nothing to plan.
func (r *run) noYAML(ctx context.Context, refs ...string) bool {
	return r.in.TerraformRoots && len(r.withYAML(ctx, nil, refs...)) == 0
}

// noCheckoutYAML reports whether, with Terraform roots on, the checkout
// (a push's: the merge commit) has no kyku.yaml at input config.
func (r *run) noCheckoutYAML() bool {
	if !r.in.TerraformRoots {
		return false
	}
	_, err := os.Stat(filepath.Join(r.src.root, filepath.FromSlash(r.src.path)))
	return errors.Is(err, fs.ErrNotExist)
}

// touchedRoots are the Terraform roots pull request number touches at
// head (none with input terraform-roots: off). Roots outside input
// working-directory are named in a notice and left alone; a root with a
// configuration file that is a symbolic link is refused.
func (r *run) touchedRoots(ctx context.Context, number int, head string) ([]string, error) {
	if !r.in.TerraformRoots {
		return nil, nil
	}
	changed, err := r.repo.ChangedFiles(ctx, number)
	if err != nil {
		return nil, fmt.Errorf("list the files #%d changes: %w", number, err)
	}
	if !slices.ContainsFunc(changed, tfroots.Touches) {
		return nil, nil
	}
	return r.findRoots(ctx, head, changed)
}

// allRoots are every Terraform root at ref (the drift check's).
func (r *run) allRoots(ctx context.Context, ref string) ([]string, error) {
	if !r.in.TerraformRoots {
		return nil, nil
	}
	files, err := r.filesAt(ctx, ref)
	if err != nil {
		return nil, err
	}
	all := tfroots.Configs(files)
	if len(all) == 0 {
		return nil, nil
	}
	return r.findRoots(ctx, ref, all)
}

func (r *run) findRoots(ctx context.Context, ref string, changed []string) ([]string, error) {
	top, err := r.rootTop(ctx, ref)
	if err != nil {
		return nil, err
	}
	found := tfroots.Find(top, changed, tfroots.Options{Dir: r.in.WorkingDirectory})
	if len(found.Outside) > 0 {
		r.a.Noticef("kyku: Terraform roots outside input working-directory %s left alone: %s", r.in.WorkingDirectory, strings.Join(found.Outside, ", "))
	}
	if len(found.Links) > 0 {
		return nil, fmt.Errorf("%s: a symbolic link among a Terraform root's files is not read (it could bring in another root's backend, or a file outside the repository): commit the file itself", strings.Join(found.Links, ", "))
	}
	return found.Roots, nil
}

// mergedPR is the pull request the push of the default branch merged
// (nil: none, a direct push).
func (r *run) mergedPR(ctx context.Context) (*github.PR, error) {
	prs, err := r.repo.PullRequestsForCommit(ctx, r.ev.After)
	if err != nil {
		return nil, fmt.Errorf("find the pull request merged by %s: %w", r.ev.After, err)
	}
	for i := range prs {
		if prs[i].Merged && prs[i].State == "closed" {
			return &prs[i], nil
		}
	}
	return nil, nil
}

// baseRef is the commit whose backend blocks open the roots' states:
// the default branch, as it was before the merge on a push; "" is the
// checkout, when it is the default branch as such (filesAt).
func (r *run) baseRef() string {
	if r.checkoutIsDefault() {
		return ""
	}
	return r.trustRef()
}
