package cli

import (
	"context"
	"errors"
	"io"

	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/progress"
)

// PolicySet is the policies of plan --policy, loaded (Env.Policies):
// Check evaluates them against p and prints what they said to w, each
// denial and warning scrubbed of secrets; a denial is an error.
type PolicySet interface {
	Check(ctx context.Context, w io.Writer, p *plan.Plan, secrets progress.Secrets) error
}

var errPoliciesNotLinked = errors.New("--policy needs the Open Policy Agent, which this program does not link (kyku-engine, installed beside kyku, does: install Kyku as docs/install.md says)")
