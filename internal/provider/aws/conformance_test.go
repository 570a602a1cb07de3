package aws_test

import (
	"testing"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/providertest"
)

// The shared conformance suite, every subtest against one fake cloud.
func TestConformance(t *testing.T) {
	p, _ := setup(t)
	providertest.Run(t, func(*testing.T) provider.Provider { return p }, providertest.Default())
}
