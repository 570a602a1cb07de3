package workspace_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/sim"
	"github.com/kyku/action/internal/workspace"
)

func mustParse(t *testing.T, text string) *config.Config {
	t.Helper()
	cfg, err := config.Parse([]config.File{{Name: "kyku.yaml", Data: []byte(text)}})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func touch(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestStateFollowsTheConfiguration: a relative local path, the default
// .kyku-state and the sim's default directory are under the configuration's
// directory (BaseDir), whatever the working directory; a path from the
// environment (KYKU_SIM_DIR) or an absolute one is left as it is.
func TestStateFollowsTheConfiguration(t *testing.T) {
	root := t.TempDir()
	t.Chdir(root)
	base := filepath.Join(root, "infra")
	var simDir string
	reg := provider.Registry{"sim": func(ctx context.Context, s map[string]string, getenv func(string) string) (provider.Provider, error) {
		p, err := sim.Factory(ctx, s, getenv)
		if err == nil {
			simDir = p.(interface{ Dir() string }).Dir()
		}
		return p, err
	}}
	for _, tt := range []struct {
		name, config     string
		env              map[string]string
		wantState, wantS string
	}{
		{"defaults", "provider: sim\nresources: {}\n", nil, "local " + filepath.Join(base, ".kyku-state", "state.prod.json"), filepath.Join(base, ".kyku-state", "sim")},
		{"relative paths", "provider: { name: sim, dir: cloud }\nbackend: { type: local, path: state }\nresources: {}\n", nil,
			"local " + filepath.Join(base, "state", "state.prod.json"), filepath.Join(base, "cloud")},
		{"absolute paths", "provider: { name: sim, dir: " + filepath.Join(root, "abs-cloud") + " }\nbackend: { type: local, path: " + filepath.Join(root, "abs") + " }\nresources: {}\n", nil,
			"local " + filepath.Join(root, "abs", "state.prod.json"), filepath.Join(root, "abs-cloud")},
		{"KYKU_SIM_DIR", "provider: sim\nresources: {}\n", map[string]string{sim.EnvDir: "from-env"},
			"local " + filepath.Join(base, ".kyku-state", "state.prod.json"), "from-env"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ws, err := workspace.Open(t.Context(), mustParse(t, tt.config), workspace.Settings{
				Env: "prod", BaseDir: base, Getenv: func(k string) string { return tt.env[k] },
			}, reg)
			if err != nil {
				t.Fatal(err)
			}
			if got := ws.Backend.Describe(); got != tt.wantState {
				t.Errorf("state at %s, want %s", got, tt.wantState)
			}
			if simDir != tt.wantS {
				t.Errorf("sim at %s, want %s", simDir, tt.wantS)
			}
		})
	}
}

// TestStateOnlyAtTheFormerPlaceIsRefused: state (or a sim cloud) found
// only where kyku kept it before, relative to the working directory (in
// .kyku, the older name, which may hold settings too: the files to move
// are named), is not used and not duplicated: Open refuses, saying how to
// move it, and writes nothing. Once moved, it is used.
func TestStateOnlyAtTheFormerPlaceIsRefused(t *testing.T) {
	root := t.TempDir()
	t.Chdir(root)
	base := filepath.Join(root, "infra")
	cfg := mustParse(t, "provider: sim\nresources: {}\n")
	open := func() error {
		_, err := workspace.Open(t.Context(), cfg, workspace.Settings{Env: "prod", BaseDir: base}, provider.Registry{"sim": sim.Factory})
		return err
	}
	// The state of another environment at the old place is not this one's.
	touch(t, filepath.Join(root, ".kyku", "state.dev.json"))
	if err := open(); err != nil {
		t.Fatalf("another environment's state: %v", err)
	}
	if err := os.RemoveAll(base); err != nil {
		t.Fatal(err)
	}
	touch(t, filepath.Join(root, ".kyku", "state.prod.json"))
	touch(t, filepath.Join(root, ".kyku", "sim", "Vm", "1.json"))
	err := open()
	var moved *workspace.MovedStateError
	if !errors.As(err, &moved) || moved.What != "local state" || moved.Old != ".kyku" || moved.New != filepath.Join("infra", ".kyku-state") ||
		!strings.Contains(err.Error(), "move it there (move state.dev.json, state.prod.json from .kyku into infra/.kyku-state)") {
		t.Fatalf("err = %v, want the state's move", err)
	}
	if _, err := os.Stat(base); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused open created %s", base)
	}
	// The state moved, the sim's cloud left behind: that is refused too.
	touch(t, filepath.Join(base, ".kyku-state", "state.prod.json"))
	err = open()
	if !errors.As(err, &moved) || moved.What != "the sim's cloud" || !strings.Contains(err.Error(), "(mv .kyku/sim infra/.kyku-state/sim)") {
		t.Fatalf("err = %v, want the sim's move", err)
	}
	if err := os.Rename(filepath.Join(root, ".kyku", "sim"), filepath.Join(base, ".kyku-state", "sim")); err != nil {
		t.Fatal(err)
	}
	if err := open(); err != nil {
		t.Fatalf("after the move: %v", err)
	}
	// Run from the configuration's directory, old and new are one place.
	t.Chdir(base)
	if err := open(); err != nil {
		t.Fatalf("from the configuration's directory: %v", err)
	}
}

// TestFormerPlaceOfAnotherConfigurationIsNotLookedAt: a working directory
// holding a configuration of its own (kyku.yaml) keeps that
// configuration's state and cloud in its .kyku: another configuration
// opened from there is not told that state is its own to move; it opens
// its own (none yet). What reads no state (validation, NoFormerCheck)
// does not look at the working directory at all.
func TestFormerPlaceOfAnotherConfigurationIsNotLookedAt(t *testing.T) {
	root := t.TempDir()
	t.Chdir(root)
	base := filepath.Join(root, "infra")
	touch(t, filepath.Join(root, ".kyku", "state.json"))
	touch(t, filepath.Join(root, ".kyku", "sim", "Vm", "1.json"))
	cfg := mustParse(t, "provider: sim\nresources: {}\n")
	reg := provider.Registry{"sim": sim.Factory}
	for _, tt := range []struct {
		name      string
		ownConfig bool // the working directory holds kyku.yaml
		noCheck   bool
		refused   bool
	}{
		{"an orphaned .kyku", false, false, true},
		{"another configuration's .kyku", true, false, false},
		{"no former check", false, true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_ = os.Remove(filepath.Join(root, "kyku.yaml"))
			if tt.ownConfig {
				touch(t, filepath.Join(root, "kyku.yaml"))
			}
			s := workspace.Settings{BaseDir: base, NoFormerCheck: tt.noCheck}
			_, err := workspace.Open(t.Context(), cfg, s, reg)
			if got := workspace.IsMovedState(err); got != tt.refused {
				t.Errorf("Open: %v; refused %v, want %v", err, got, tt.refused)
			}
			p, err := workspace.Provider(t.Context(), cfg, s, reg)
			if got := workspace.IsMovedState(err); got != tt.refused {
				t.Errorf("Provider (the sim's cloud): %v; refused %v, want %v", err, got, tt.refused)
			}
			if err == nil {
				workspace.Release(p)
			}
		})
	}
	if _, err := os.Stat(base); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("opening wrote %s", base)
	}
}
