package engine

import (
	"errors"
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/state"
)

// TestTargetsCoverIntents: --target covers an interrupted create's open
// intent as it covers a resource in state: by its address, or by the
// name of the resource whose instance it is; the refusal of an apply
// destroying removed resources names only the intents it covers.
func TestTargetsCoverIntents(t *testing.T) {
	cfg := &config.Config{}
	st := &state.File{
		Resources:   map[string]*state.Resource{"bulk[0]": {}, "other": {}},
		Interrupted: map[string]string{"bulk[3]": "t", "lone": "t"},
	}
	destroys := []plan.Change{{ResourceID: "other", Action: plan.Destroy}}
	for _, c := range []struct {
		targets []string
		covers  []string
		refused []string
	}{
		{[]string{"bulk"}, []string{"bulk[0]", "bulk[3]"}, []string{"bulk[3]"}},
		{[]string{"lone"}, []string{"lone"}, []string{"lone"}},
		{[]string{"other"}, []string{"other"}, nil},
	} {
		set, err := targetSet(c.targets, nil, cfg, st, func(string) []string { return nil })
		if err != nil {
			t.Fatalf("--target %v: %v", c.targets, err)
		}
		if diff := cmp.Diff(c.covers, slices.Sorted(maps.Keys(set))); diff != "" {
			t.Errorf("--target %v covers (-want +got):\n%s", c.targets, diff)
		}
		err = refuseInterruptedRemoved(st, cfg, destroys, func(n string) bool { return set[n] })
		var ie *InterruptedError
		if errors.As(err, &ie) != (c.refused != nil) || ie != nil && !slices.Equal(ie.Names, c.refused) {
			t.Errorf("--target %v: refusal %v, want one naming %v", c.targets, err, c.refused)
		}
	}
}
