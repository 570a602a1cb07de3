package statemgrtest

import (
	"sync"
	"testing"
	"time"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
)

// The factory given to Run must configure its backends with these, so the
// suite runs fast and can check retention.
const (
	// LockTimeout is the lock acquire timeout. The poll interval must be
	// well below it (50ms or less).
	LockTimeout = 300 * time.Millisecond
	// BackupRetention is how many backups the backend keeps.
	BackupRetention = 3
)

// Factory returns a Backend. Calls with the same *testing.T must return
// distinct Backend values on one shared store (as two processes would see
// it); calls with different *testing.T must return fresh, empty stores.
// SharedStore builds one.
type Factory func(t *testing.T) statemgr.Backend

// SharedStore builds a Factory: newStore makes a fresh store location once
// per test (a directory, a bucket prefix) and open makes each Backend value
// on it.
func SharedStore[S any](newStore func(t *testing.T) S, open func(t *testing.T, store S) statemgr.Backend) Factory {
	get := perTest(newStore)
	return func(t *testing.T) statemgr.Backend {
		t.Helper()
		return open(t, get(t))
	}
}

// perTest returns each test's store: made by newStore on the test's first
// call, forgotten when the test ends.
func perTest[S any](newStore func(t *testing.T) S) func(t *testing.T) S {
	var mu sync.Mutex
	stores := map[*testing.T]S{}
	return func(t *testing.T) S {
		t.Helper()
		mu.Lock()
		defer mu.Unlock()
		s, ok := stores[t]
		if !ok {
			s = newStore(t)
			stores[t] = s
			t.Cleanup(func() {
				mu.Lock()
				delete(stores, t)
				mu.Unlock()
			})
		}
		return s
	}
}

// Run runs the conformance suite against the backends newBackend makes (see
// Factory for its contract, LockTimeout and BackupRetention for the options
// it must set).
func Run(t *testing.T, newBackend Factory) {
	t.Run("Store", func(t *testing.T) { testStore(t, newBackend) })
	t.Run("Journal", func(t *testing.T) { testJournal(t, newBackend) })
	t.Run("Backups", func(t *testing.T) { testBackups(t, newBackend) })
	t.Run("Objects", func(t *testing.T) { testObjects(t, newBackend) })
	t.Run("Lock", func(t *testing.T) { testLock(t, newBackend) })
	t.Run("Takeover", func(t *testing.T) { testTakeover(t, newBackend) })
	t.Run("Conditional", func(t *testing.T) { testConditional(t, newBackend) })
}

// NewLockInfo returns the body a command would lock with.
func NewLockInfo(op string) statemgr.LockInfo {
	return statemgr.LockInfo{
		Operation: op,
		Who:       op + "er@test-host",
		Actor:     "octocat",
		RunURL:    "https://github.com/acme/infra/actions/runs/42",
	}
}

// NewState returns a state of the given lineage and serial holding the named
// resources, with nested config and outputs that survive a round trip.
func NewState(lineage string, serial int64, names ...string) *state.File {
	f := state.New("a1b2c3d4", lineage, "test")
	f.Metadata.Serial = serial
	for i, n := range names {
		f.Resources[n] = NewResource(n, i)
	}
	f.Outputs = map[string]any{"count": float64(len(names))}
	return f
}

// NewResource returns a resource with nested config and outputs.
func NewResource(name string, i int) *state.Resource {
	return &state.Resource{
		Name:       name,
		Type:       "Vm",
		CloudName:  "a1b2c3d4-" + name,
		ProviderID: "100" + string(rune('0'+i%10)),
		Config: map[string]any{
			"size":           "small",
			"storageGb":      float64(20 + i),
			"securityGroups": []any{"sg-1", "sg-2"},
			"tags":           map[string]any{"team": "web", "index": float64(i)},
		},
		Outputs:      map[string]any{"id": "100", "publicIp": "203.0.113.7"},
		Dependencies: []string{"main-vpc"},
	}
}
