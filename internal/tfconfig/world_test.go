package tfconfig_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/provider/builtin"
	"github.com/kyku/action/internal/provider/sim"
	"github.com/kyku/action/internal/provider/tfprovider"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr/local"
	"github.com/kyku/action/internal/tfconfig"
	"github.com/kyku/action/internal/tfplugin/tfplugintest"
	"github.com/kyku/action/internal/workspace"
)

var (
	testProviders   = []tfplugintest.Provider{tfplugintest.Framework, tfplugintest.SDK}
	tfplugintestSDK = tfplugintest.SDK
)

// world is one configuration directory of .tf files, its state, the
// sim's cloud and the test provider's cloud (a directory of items).
type world struct {
	t      *testing.T
	tp     tfplugintest.Provider
	dir    string // the configuration
	cloud  string
	state  string
	router *tfprovider.Router
	ids    atomic.Int64 // the built-in provider's IDs made so far
}

// newID is the built-in provider's ID source: 00000000-0000-0000-0000-00000000000N.
func (w *world) newID() (string, error) {
	return fmt.Sprintf("00000000-0000-0000-0000-%012d", w.ids.Add(1)), nil
}

func newWorld(t *testing.T, tp tfplugintest.Provider) *world {
	t.Helper()
	base := t.TempDir()
	w := &world{t: t, tp: tp, dir: filepath.Join(base, "config"), cloud: filepath.Join(base, "cloud"), state: filepath.Join(base, "state")}
	for _, d := range []string{w.dir, w.cloud} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

// write writes the configuration's files (name → text; TP stands for
// the provider's type prefix, CLOUD for its cloud directory), replacing
// the ones written before.
func (w *world) write(files map[string]string) {
	w.t.Helper()
	entries, _ := os.ReadDir(w.dir)
	for _, e := range entries {
		os.RemoveAll(filepath.Join(w.dir, e.Name()))
	}
	for name, text := range files {
		path := filepath.Join(w.dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			w.t.Fatal(err)
		}
		text = strings.ReplaceAll(strings.ReplaceAll(text, "CLOUD", w.cloud), "TP", w.tp.Type)
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			w.t.Fatal(err)
		}
	}
}

// load reads and expands the configuration.
func (w *world) load(in tfconfig.Inputs) (*config.Config, error) {
	m, err := tfconfig.Load(w.dir, nil, in)
	if err != nil {
		return nil, err
	}
	return tfconfig.Expand(m, in)
}

func (w *world) mustLoad(in tfconfig.Inputs) *config.Config {
	w.t.Helper()
	cfg, err := w.load(in)
	if err != nil {
		w.t.Fatalf("load: %v", err)
	}
	return cfg
}

// engine opens an engine on cfg's providers, a new process per run.
func (w *world) engine(cfg *config.Config) *engine.Engine {
	w.t.Helper()
	base, err := sim.Factory(w.t.Context(), map[string]string{"dir": filepath.Join(w.state, "sim")}, func(string) string { return "" })
	if err != nil {
		w.t.Fatal(err)
	}
	var plugins []*tfprovider.Provider
	for _, pp := range cfg.Providers {
		plugins = append(plugins, tfprovider.New(tfprovider.Config{
			Name: pp.Name, Source: w.tp.Source(), Executable: tfplugintest.Build(w.t, w.tp),
			Settings: pp.Config, Pos: pp.Pos, PropPos: &pp.PropPos, ClientVersion: tfconfig.OpenTofuVersion, StopGrace: 5 * time.Second,
		}))
	}
	w.close()
	states := workspace.NewRemoteStates(w.dir, workspace.Settings{Getenv: func(string) string { return "" }})
	w.router = tfprovider.NewRouter(base, plugins...).Serve(builtin.Name, builtin.New(w.newID).WithStates(states))
	w.t.Cleanup(w.close)
	return engine.New(w.router, local.New(filepath.Join(w.state, ".kyku"), "", local.Options{}), engine.Options{
		DeployPrefix: "t", RetryBase: time.Millisecond, DestroyBase: time.Millisecond, VerifyInterval: time.Millisecond,
	})
}

func (w *world) close() {
	if w.router != nil {
		w.router.Close()
		w.router = nil
	}
}

func (w *world) plan(cfg *config.Config) *plan.Plan {
	w.t.Helper()
	p, err := w.engine(cfg).Plan(w.t.Context(), cfg)
	if err != nil {
		w.t.Fatalf("plan: %v", err)
	}
	return p
}

func (w *world) apply(cfg *config.Config) *engine.Result {
	w.t.Helper()
	res, err := w.engine(cfg).Apply(w.t.Context(), cfg, engine.ApplyOptions{AutoApprove: true}, nil)
	if err != nil {
		w.t.Fatalf("apply: %v", err)
	}
	if err := res.Err(); err != nil {
		w.t.Fatalf("apply: %v", err)
	}
	return res
}

func (w *world) readState() *state.File {
	w.t.Helper()
	st, err := local.New(filepath.Join(w.state, ".kyku"), "", local.Options{}).Read(w.t.Context())
	if err != nil {
		w.t.Fatal(err)
	}
	return st
}

// actions is every change of p as "address action".
func actions(p *plan.Plan) []string {
	var out []string
	for _, c := range p.Changes {
		out = append(out, c.ResourceID+" "+c.Action.String())
	}
	return out
}

func change(p *plan.Plan, addr string) *plan.Change {
	for i := range p.Changes {
		if p.Changes[i].ResourceID == addr {
			return &p.Changes[i]
		}
	}
	return nil
}

// writeItem puts an item in the test provider's cloud, as if made by hand.
func (w *world) writeItem(id, name, val string) {
	w.t.Helper()
	data := `{"id":"` + id + `","name":"` + name + `","value":"` + val + `","revision":4}`
	if err := os.WriteFile(filepath.Join(w.cloud, id+".json"), []byte(data), 0o600); err != nil {
		w.t.Fatal(err)
	}
}

func planAllowingDestroyAll() engine.PlanOptions { return engine.PlanOptions{AllowDestroyAll: true} }
