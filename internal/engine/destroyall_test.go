package engine_test

import (
	"strings"
	"testing"

	"github.com/kyku/action/internal/engine"
)

// TestDestroyAllWording: the refusal counts what it would destroy in
// words that fit the number.
func TestDestroyAllWording(t *testing.T) {
	for n, want := range map[int]string{
		1: "refusing a plan that destroys the 1 resource in state because",
		2: "refusing a plan that destroys all 2 resources in state because",
	} {
		if got := (&engine.DestroyAllError{Resources: n}).Error(); !strings.HasPrefix(got, want) {
			t.Errorf("%d: %q, want it to start %q", n, got, want)
		}
	}
}
