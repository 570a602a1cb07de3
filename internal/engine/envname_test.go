package engine_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/envname"
	"github.com/kyku/action/internal/provider/sim"
	"github.com/kyku/action/internal/statemgr/local"
)

// TestEnvironmentNameIsCheckedBeforeTheBackend: whoever builds the engine
// (a front door, the Go API), an environment name that could reach outside
// the state directory is refused before the state is locked or written.
func TestEnvironmentNameIsCheckedBeforeTheBackend(t *testing.T) {
	w := newWorld(t)
	if err := os.MkdirAll(w.stateDir, 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := sim.New(sim.Options{Dir: w.simDir})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	for _, env := range []string{"../../x", "../x", "a/b", "prod.eu"} {
		e := engine.New(p, local.New(w.stateDir, env, local.Options{LockTimeout: time.Second}), engine.Options{Env: env})
		var bad *envname.Error
		if _, err := e.Plan(ctx, parse(t, stack)); !errors.As(err, &bad) {
			t.Errorf("plan in %q: %v", env, err)
		}
		if _, err := e.Apply(ctx, parse(t, stack), engine.ApplyOptions{AutoApprove: true}, nil); !errors.As(err, &bad) {
			t.Errorf("apply in %q: %v", env, err)
		}
		if _, err := e.Destroy(ctx, engine.ApplyOptions{AutoApprove: true}); !errors.As(err, &bad) {
			t.Errorf("destroy in %q: %v", env, err)
		}
	}
	var written []string
	_ = filepath.WalkDir(filepath.Dir(w.stateDir), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			written = append(written, path)
		}
		return err
	})
	if len(written) != 0 {
		t.Errorf("files written: %v", written)
	}
}
