package review

import (
	"regexp"
	"sync"

	"github.com/kyku/action/internal/plan"
)

// ChangesDigest is plan.ChangesDigest: what a plan would do, in the one
// canonical form the engine also compares saved plans with. It is what
// Kyku's plan comment shows and what Apply compares.
func ChangesDigest(p *plan.Plan) (string, error) { return plan.ChangesDigest(p) }

// digestRE is what a digest looks like.
var digestRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[0-9a-f]{64}$`)
})

// prefixRE is the engine's deploy prefix: 8 lowercase hex digits.
var prefixRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[0-9a-f]{8}$`)
})
