package hetzner_test

import (
	"testing"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/providertest"
)

// The shared conformance suite, every subtest against one fake project,
// through the real hcloud-go client.
func TestConformance(t *testing.T) {
	e := setup(t)
	fx := fixtures()
	fx.Agreement = agreement()
	providertest.Run(t, func(*testing.T) provider.Provider { return e.p }, fx)
	if inv := e.cloud.Inventory(); len(inv) != 0 {
		t.Errorf("the suite left objects behind: %v", inv)
	}
}
