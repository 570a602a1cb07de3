package action

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	gh "github.com/google/go-github/v88/github"

	"github.com/kyku/action/internal/github"
	"github.com/kyku/action/internal/policy"
	"github.com/kyku/action/internal/review"
)

// policies loads the policies that judge this run, always from the
// default branch, never from a pull request: on a push (a merge), the
// default branch as it was before it (the push's "before" commit), so the
// merged pull request's own policy changes do not judge it; on schedule
// and a workflow_dispatch for no pull request, the checkout (the default
// branch); on every other event, the default branch's tip through the API.
func (r *run) policies(ctx context.Context) (*policy.Set, error) {
	if r.checkoutIsDefault() {
		return r.src.checkoutPolicies()
	}
	switch r.ghctx.EventName {
	case "push":
		if b := r.ev.Before; b != "" && strings.Trim(b, "0") != "" {
			return r.src.policiesAt(ctx, b)
		}
	}
	return r.src.policiesAt(ctx, r.defaultBranch())
}

// policiesAt reads the policies under policy.Dir at ref (the repository
// archive, read once per ref and run).
func (s sources) policiesAt(ctx context.Context, ref string) (*policy.Set, error) {
	files, err := s.tree(ctx, ref)
	if err != nil {
		return nil, fmt.Errorf("read the policies at %s: %w", ref, err)
	}
	return policy.FromTree(files, ref), nil
}

// checkoutPolicies reads the policies from the checkout.
func (s sources) checkoutPolicies() (*policy.Set, error) {
	files := map[string][]byte{}
	root := filepath.Join(s.root, filepath.FromSlash(policy.Dir))
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && p == root {
			return fs.SkipAll
		}
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(s.root, p)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files[filepath.ToSlash(rel)] = data
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the policies in the checkout: %w", err)
	}
	return policy.FromTree(files, "the checkout"), nil
}

// treeCache keeps the repository archives read in one run, by ref.
type treeCache struct {
	mu    sync.Mutex
	trees map[string]map[string][]byte
}

// tree is the repository's files at ref.
func (s sources) tree(ctx context.Context, ref string) (map[string][]byte, error) {
	if s.cache != nil {
		s.cache.mu.Lock()
		t, ok := s.cache.trees[ref]
		s.cache.mu.Unlock()
		if ok {
			return t, nil
		}
	}
	rc, err := s.repo.Tarball(ctx, ref)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	files, err := github.ExtractTarball(rc, maxTarball)
	if err != nil {
		return nil, err
	}
	if s.cache != nil {
		s.cache.mu.Lock()
		if s.cache.trees == nil {
			s.cache.trees = map[string]map[string][]byte{}
		}
		s.cache.trees[ref] = files
		s.cache.mu.Unlock()
	}
	return files, nil
}

// diagLine is "file:line:col: message", as policy errors are reported.
var diagLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(.+?):(\d+):(\d+): (.*)$`)
})

// reportPolicy reports a plan's policy check outside the comment: an
// annotation per denial, warning and policy error (on its file and line),
// and the check run "kyku policy (<env>)" on the head commit when the
// token may create check runs (permissions: checks: write). Without that
// permission the job summary and the annotations carry the result, and
// the log says so. The check run's conclusion is the policies' verdict at
// plan time; an apply checks them again (and a policy owner's approval).
func (r *run) reportPolicy(ctx context.Context, out *review.PlanOutcome, headSHA string) {
	rep := out.Policy
	if rep == nil {
		return
	}
	r.learn(nil, out.Plan)
	secrets := r.known() // a policy's message may quote what it read
	for _, line := range strings.Split(secrets.Scrub(rep.Error), "\n") {
		if line == "" {
			continue
		}
		if m := diagLine().FindStringSubmatch(line); m != nil {
			r.a.WithFieldsMap(map[string]string{"title": "kyku policy", "file": m[1], "line": m[2], "col": m[3]}).Errorf("%s", m[4])
		} else {
			r.a.WithFieldsMap(map[string]string{"title": "kyku policy"}).Errorf("%s", line)
		}
	}
	for _, d := range rep.Deny {
		r.a.WithFieldsMap(map[string]string{"title": "kyku policy: denied"}).Errorf("%s", secrets.Scrub(d))
	}
	for _, w := range rep.Warn {
		r.a.WithFieldsMap(map[string]string{"title": "kyku policy: warning"}).Warningf("%s", secrets.Scrub(w))
	}
	if headSHA == "" || r.repo == nil {
		return
	}
	s := r.settings()
	check, ok := out.PolicyCheck(s, r.meta(headSHA))
	if !ok {
		return
	}
	_, err := r.repo.CreateCheck(ctx, headSHA, check)
	var ge *gh.ErrorResponse
	switch {
	case err == nil:
	case errors.As(err, &ge) && ge.Response != nil && ge.Response.StatusCode == http.StatusForbidden:
		r.a.Noticef("the policy check is in the job summary and annotations only: the token may not create check runs (give the job `permissions: { checks: write }` for a check run %q)", check.Name)
	default:
		r.a.Warningf("could not create the policy check run: %s", err)
	}
}
