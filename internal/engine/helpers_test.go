package engine_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/progress"
	"github.com/kyku/action/internal/provider/sim"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr/local"
)

// world is one test's cloud (the sim) and state directory.
type world struct {
	t        *testing.T
	simDir   string
	stateDir string
	events   *recorder
	simOpts  sim.Options
}

func newWorld(t *testing.T) *world {
	t.Helper()
	dir := t.TempDir()
	return &world{
		t: t, simDir: filepath.Join(dir, "sim"), stateDir: filepath.Join(dir, "state"),
		events: &recorder{},
	}
}

func (w *world) engine(mods ...func(*engine.Options)) *engine.Engine {
	w.t.Helper()
	opts := w.simOpts
	opts.Dir = w.simDir
	p, err := sim.New(opts)
	if err != nil {
		w.t.Fatal(err)
	}
	if err := os.MkdirAll(w.stateDir, 0o755); err != nil {
		w.t.Fatal(err)
	}
	b := local.New(w.stateDir, "", local.Options{LockTimeout: 2 * time.Second})
	eo := engine.Options{
		RetryBase: time.Millisecond, RetryMax: 5 * time.Millisecond,
		DestroyBase: time.Millisecond, VerifyInterval: time.Millisecond,
		Hook: w.events, DeployPrefix: "test",
	}
	for _, m := range mods {
		m(&eo)
	}
	return engine.New(p, b, eo)
}

func (w *world) state() *state.File {
	w.t.Helper()
	data, err := os.ReadFile(filepath.Join(w.stateDir, "state.json"))
	if err != nil {
		w.t.Fatal(err)
	}
	st, err := state.Decode("state.json", data)
	if err != nil {
		w.t.Fatal(err)
	}
	return st
}

func (w *world) stateBytes() []byte {
	w.t.Helper()
	data, err := os.ReadFile(filepath.Join(w.stateDir, "state.json"))
	if err != nil {
		w.t.Fatal(err)
	}
	return data
}

// cloud lists the sim's objects as "Type/cloudName".
func (w *world) cloud() []string {
	w.t.Helper()
	var out []string
	files, _ := filepath.Glob(filepath.Join(w.simDir, "*", "*.json"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			w.t.Fatal(err)
		}
		var o struct {
			Type, CloudName string
		}
		if err := jsonUnmarshal(data, &o); err != nil {
			w.t.Fatalf("%s: %v", f, err)
		}
		out = append(out, o.Type+"/"+o.CloudName)
	}
	sort.Strings(out)
	return out
}

func parse(t *testing.T, yaml string) *config.Config {
	t.Helper()
	cfg, err := config.Parse([]config.File{{Name: "kyku.yaml", Data: []byte(strings.TrimLeft(yaml, "\n"))}})
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	return cfg
}

func mustPlan(t *testing.T, e *engine.Engine, cfg *config.Config) *plan.Plan {
	t.Helper()
	p, err := e.Plan(t.Context(), cfg)
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	return p
}

func mustApply(t *testing.T, e *engine.Engine, cfg *config.Config) *engine.Result {
	t.Helper()
	res, err := e.Apply(t.Context(), cfg, engine.ApplyOptions{AutoApprove: true}, nil)
	if err != nil {
		t.Fatalf("apply: %v", err)
	}
	if err := res.Err(); err != nil {
		t.Fatalf("apply: %v", err)
	}
	return res
}

// actions summarises a plan as "action Type name" lines (no-ops left out).
func actions(p *plan.Plan) []string {
	var out []string
	for _, c := range p.Changes {
		if c.Action != plan.NoOp {
			out = append(out, c.Action.String()+" "+c.Type+" "+c.ResourceID)
		}
	}
	return out
}

type recorder struct {
	mu     sync.Mutex
	events []progress.Event
}

func (r *recorder) Event(e progress.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

// order returns "kind action name" for events of the given kinds.
func (r *recorder) order(kinds ...progress.Kind) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.events {
		for _, k := range kinds {
			if e.Kind == k {
				out = append(out, e.Kind.String()+" "+e.Action.String()+" "+e.Name)
			}
		}
	}
	return out
}

func (r *recorder) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = nil
}
