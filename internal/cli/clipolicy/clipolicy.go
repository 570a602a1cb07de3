// Package clipolicy is the CLI's plan --policy: it loads the Rego
// policies of a directory (internal/policy, the Open Policy Agent) and
// prints what they say of a plan. It is apart from package cli so that
// the kyku executable, which does not evaluate policies, does not link OPA
// and pay its initialisation at every start (docs/architecture.md, "Two
// executables"): kyku-engine passes Load as cli.Env.Policies. A set is
// safe for concurrent use.
package clipolicy

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/kyku/action/internal/cli"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/policy"
	"github.com/kyku/action/internal/progress"
)

// Load reads the policies in dir (cli.Env.Policies).
func Load(dir string) (cli.PolicySet, error) {
	set, err := policy.LoadDir(dir)
	if err != nil {
		return nil, err
	}
	return checker{set}, nil
}

type checker struct{ set *policy.Set }

func (c checker) Check(ctx context.Context, w io.Writer, p *plan.Plan, secrets progress.Secrets) error {
	return checkPolicies(ctx, w, c.set, p, secrets)
}

// checkPolicies evaluates set against p and prints what it said: each
// denial and warning, or a line saying the policies passed. A denial is an
// error (exit 1), so is a policy that cannot be evaluated (its
// diagnostics, file:line:col, are printed by Run). What a policy says is
// scrubbed of secrets: it may quote what it read.
func checkPolicies(ctx context.Context, w io.Writer, set *policy.Set, p *plan.Plan, secrets progress.Secrets) error {
	in, err := policy.NewInput(p)
	if err != nil {
		return err
	}
	res, err := set.Evaluate(ctx, in, policy.DefaultTimeout)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\nPolicies (%d file(s) in %s):\n", len(res.Files), set.Ref)
	for _, d := range res.Deny {
		fmt.Fprintf(w, "  ✗ deny: %s\n", oneLine(secrets.Scrub(d)))
	}
	if res.MoreDeny > 0 {
		fmt.Fprintf(w, "  ✗ …and %d more denials\n", res.MoreDeny)
	}
	for _, x := range res.Warn {
		fmt.Fprintf(w, "  ! warn: %s\n", oneLine(secrets.Scrub(x)))
	}
	if res.MoreWarn > 0 {
		fmt.Fprintf(w, "  ! …and %d more warnings\n", res.MoreWarn)
	}
	if !res.Denied() {
		fmt.Fprintln(w, "  ✓ no policy denies this plan")
		return nil
	}
	return fmt.Errorf("the policies deny this plan (%d denial(s))", len(res.Deny)+res.MoreDeny)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
