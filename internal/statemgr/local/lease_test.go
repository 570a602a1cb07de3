package local_test

import (
	"path/filepath"
	"testing"

	"github.com/kyku/action/internal/lease"
	"github.com/kyku/action/internal/lease/leasesuite"
	"github.com/kyku/action/internal/statemgr/local"
)

// TestLeases runs the per-object lease suite on a state directory (its
// conditional writes serialized by an fcntl lock).
func TestLeases(t *testing.T) {
	leasesuite.Run(t, func(t *testing.T) string { return filepath.Join(t.TempDir(), "state") },
		func(t *testing.T, dir string) lease.Store { return local.New(dir, "", local.Options{}) })
}
