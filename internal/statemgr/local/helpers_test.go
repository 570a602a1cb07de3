package local

import (
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/statemgrtest"
)

// fakeClock is a settable clock for Options.Now.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2026, 11, 29, 18, 5, 1, 123_000_000, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// fastOptions are test options: short waits, everything else default.
func fastOptions() Options {
	return Options{LockTimeout: 300 * time.Millisecond, PollInterval: 5 * time.Millisecond}
}

func writeState(t *testing.T, b *Backend, f *state.File) {
	t.Helper()
	if _, err := b.Read(t.Context()); err != nil {
		t.Fatalf("Read: %v", err)
	}
	if err := b.Write(t.Context(), f, statemgr.WriteOptions{}); err != nil {
		t.Fatalf("Write: %v", err)
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func bigState(n int) *state.File {
	f := statemgrtest.NewState("lin-bench", 1)
	for i := range n {
		name := fmt.Sprintf("vm-%05d", i)
		f.Resources[name] = statemgrtest.NewResource(name, i)
	}
	return f
}
