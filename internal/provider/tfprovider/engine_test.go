package tfprovider_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/lease"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/provider/sim"
	"github.com/kyku/action/internal/provider/tfprovider"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr/local"
	"github.com/kyku/action/internal/tfplugin/tfplugintest"
	"github.com/kyku/action/internal/value"
)

var testProviders = []tfplugintest.Provider{tfplugintest.Framework, tfplugintest.SDK}

// world is one configuration directory: its state, the sim's cloud and
// the test provider's cloud (a directory of items).
type world struct {
	t      *testing.T
	tp     tfplugintest.Provider
	dir    string
	cloud  string
	router *tfprovider.Router
	// tune, when set, changes the configuration of every provider the
	// world's engines start.
	tune func(*tfprovider.Config)
	// remoteBox, when set, makes the state's backend keep no answers
	// beside it, as a remote one: they are kept in this directory
	// (engine.Options.Answers; answersremote_test.go).
	remoteBox string
	// leased makes the world's engines lease the objects they change
	// (engine.Options.Leases; answersleased_test.go).
	leased bool
}

func newWorld(t *testing.T, tp tfplugintest.Provider) *world {
	t.Helper()
	dir := t.TempDir()
	w := &world{t: t, tp: tp, dir: dir, cloud: filepath.Join(dir, "cloud")}
	if err := os.MkdirAll(w.cloud, 0o755); err != nil {
		t.Fatal(err)
	}
	return w
}

// parse reads yaml, in which CLOUD stands for the provider's cloud
// directory and TP for the provider's name.
func (w *world) parse(yaml string) *config.Config {
	w.t.Helper()
	yaml = strings.ReplaceAll(strings.ReplaceAll(yaml, "CLOUD", w.cloud), "TP", w.tp.Type)
	cfg, err := config.Parse([]config.File{{Name: "kyku.yaml", Data: []byte(yaml)}})
	if err != nil {
		w.t.Fatalf("parse: %v", err)
	}
	return cfg
}

// engine opens an engine on cfg's providers: a new process per run, as
// the front doors do; closed when the test ends (and by close).
func (w *world) engine(cfg *config.Config) *engine.Engine {
	w.t.Helper()
	base, err := sim.Factory(w.t.Context(), map[string]string{"dir": filepath.Join(w.dir, "sim")}, func(string) string { return "" })
	if err != nil {
		w.t.Fatal(err)
	}
	var plugins []*tfprovider.Provider
	for _, pp := range cfg.Providers {
		pc := tfprovider.Config{
			Name: pp.Name, Source: w.tp.Source(), Executable: tfplugintest.Build(w.t, w.tp),
			Settings: pp.Config, Pos: pp.Pos, PropPos: &pp.PropPos, ClientVersion: "1.12.6", StopGrace: 5 * time.Second,
		}
		if w.tune != nil {
			w.tune(&pc)
		}
		plugins = append(plugins, tfprovider.New(pc))
	}
	w.close()
	w.router = tfprovider.NewRouter(base, plugins...)
	w.t.Cleanup(w.close)
	opts := engine.Options{
		DeployPrefix: "t", RetryBase: time.Millisecond, DestroyBase: time.Millisecond, VerifyInterval: time.Millisecond,
		Answers: w.answers(),
	}
	if w.leased {
		if opts.Leases, err = lease.For(w.t.Context(), w.stateBackend(), "", lease.Options{Poll: 10 * time.Millisecond}); err != nil || opts.Leases == nil {
			w.t.Fatalf("lease.For: %v, %v", opts.Leases, err)
		}
	}
	return engine.New(w.router, w.stateBackend(), opts)
}

func (w *world) close() {
	if w.router != nil {
		w.router.Close()
	}
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

func (w *world) plan(cfg *config.Config) *plan.Plan {
	w.t.Helper()
	p, err := w.engine(cfg).Plan(w.t.Context(), cfg)
	if err != nil {
		w.t.Fatalf("plan: %v", err)
	}
	return p
}

func (w *world) state() *state.File {
	w.t.Helper()
	st, err := local.New(filepath.Join(w.dir, ".kyku"), "", local.Options{}).Read(w.t.Context())
	if err != nil {
		w.t.Fatal(err)
	}
	return st
}

func change(p *plan.Plan, name string) *plan.Change {
	for i := range p.Changes {
		if p.Changes[i].ResourceID == name {
			return &p.Changes[i]
		}
	}
	return nil
}

func prop(c *plan.Change, path string) *plan.PropChange {
	for i := range c.Properties {
		if c.Properties[i].Path == path {
			return &c.Properties[i]
		}
	}
	return nil
}

const lifecycle = `
providers:
  TP: { source: kyku/TP, config: { dir: CLOUD } }
resources:
  a:
    type: TP_item
    properties: { name: a, value: VALUE, secret: s3cret, tags: { env: prod } }
  b:
    type: TP_item
    properties: { name: b, value: "rev-${a.revision}" }
  key:
    type: SshKey
    properties: { publicKey: "ssh-ed25519 ${a.id}" }
`

// TestLifecycleThroughTheEngine: a provider's resources beside a Kyku
// type, through the engine: the create plan shows computed attributes as
// known after apply and a dependent's value depending on one as well;
// the apply records schema version, private data and attributes; the
// plan after it is empty; an in-place update, a RequiresReplace, drift
// and a destroy.
//
// With renewal every call goes to a new provider process (its process
// replaced after each call): the same flows give the same results.
func TestLifecycleThroughTheEngine(t *testing.T) {
	t.Parallel()
	for _, tp := range testProviders {
		for _, renew := range []bool{false, true} {
			name := tp.Type
			if renew {
				name += "/a new process for every call"
			}
			t.Run(name, func(t *testing.T) { lifecycleFlow(t, tp, renew) })
		}
	}
}

func lifecycleFlow(t *testing.T, tp tfplugintest.Provider, renew bool) {
	w := newWorld(t, tp)
	starts := 0
	if renew {
		w.tune = func(c *tfprovider.Config) {
			c.RenewAfter = 1
			c.OnStart = func(int) { starts++ }
		}
	}
	cfg := w.parse(strings.ReplaceAll(lifecycle, "VALUE", "v1"))

	p := w.plan(cfg)
	a, b, key := change(p, "a"), change(p, "b"), change(p, "key")
	if a == nil || a.Action != plan.Create || b.Action != plan.Create || key.Action != plan.Create {
		t.Fatalf("first plan: %+v", p.Changes)
	}
	if pc := prop(a, "id"); pc == nil || !pc.Unknown {
		t.Errorf("a's id: %+v, want known after apply", pc)
	}
	if pc := prop(a, "secret"); pc == nil || !pc.Sensitive {
		t.Errorf("a's secret: %+v, want sensitive", pc)
	}
	if pc := prop(b, "value"); pc == nil || !pc.Unknown {
		t.Errorf("b's value: %+v, want known after apply (it reads a's computed revision)", pc)
	}
	if pc := prop(key, "publicKey"); pc == nil || !pc.Unknown {
		t.Errorf("key's publicKey: %+v, want known after apply (a Kyku type reading a's id)", pc)
	}
	if a.Planned == nil || len(a.Planned.State) == 0 || !a.Planned.ConfigKnown || b.Planned.ConfigKnown {
		t.Errorf("planned: a %+v, b %+v", a.Planned, b.Planned)
	}

	w.apply(cfg)
	st := w.state()
	sa, sb, sk := st.Resources["a"], st.Resources["b"], st.Resources["key"]
	if sa.ProviderID != "a-1" || sa.Outputs["revision"] != 1.0 || sa.Outputs["secret"] != "s3cret" {
		t.Errorf("a in state: %+v", sa)
	}
	if sb.Outputs["value"] != "rev-1" || sk.Config["publicKey"] != "ssh-ed25519 a-1" {
		t.Errorf("dependents in state: b %+v, key %+v", sb.Outputs, sk.Config)
	}
	if tp.Protocol == 6 && sa.SchemaVersion != 1 {
		t.Errorf("a's schema version in state: %d, want 1", sa.SchemaVersion)
	}
	if tp.Protocol == 5 && len(sa.Private) == 0 {
		t.Error("the SDK's private data is not in state")
	}

	if p := w.plan(cfg); p.HasChanges() {
		t.Errorf("plan after apply has changes: %+v", p.Changes)
	}

	// An in-place update: the dependent sees the new revision
	// only after apply.
	cfg2 := w.parse(strings.ReplaceAll(lifecycle, "VALUE", "v2"))
	p = w.plan(cfg2)
	if a := change(p, "a"); a.Action != plan.Update || prop(a, "value").New != "v2" {
		t.Errorf("update plan of a: %+v", a)
	}
	if b := change(p, "b"); b.Action != plan.Update || !prop(b, "value").Unknown {
		t.Errorf("b after a's update: %+v", b)
	}
	w.apply(cfg2)
	if st := w.state(); st.Resources["a"].ProviderID != "a-1" || st.Resources["b"].Outputs["value"] != "rev-2" {
		t.Errorf("after update: a %+v b %+v", st.Resources["a"], st.Resources["b"].Outputs)
	}

	// RequiresReplace: a new name is a new object.
	cfg3 := w.parse(strings.ReplaceAll(strings.Replace(lifecycle, "name: a,", "name: a2,", 1), "VALUE", "v2"))
	p = w.plan(cfg3)
	a = change(p, "a")
	if a.Action != plan.Replace || !prop(a, "name").ForcesReplace || !prop(a, "id").Unknown {
		t.Fatalf("replace plan of a: %+v", a)
	}
	w.apply(cfg3)
	if st := w.state(); st.Resources["a"].ProviderID != "a2-3" {
		t.Errorf("replaced a: %+v", st.Resources["a"])
	}
	if _, err := os.Stat(filepath.Join(w.cloud, "a-1.json")); !os.IsNotExist(err) {
		t.Errorf("the replaced object is still in the cloud: %v", err)
	}

	// Drift: the object is changed in the cloud; the plan puts it back.
	item := filepath.Join(w.cloud, "a2-3.json")
	data, _ := os.ReadFile(item)
	if err := os.WriteFile(item, []byte(strings.Replace(string(data), `"value":"v2"`, `"value":"drifted"`, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := w.engine(cfg3).Refresh(t.Context(), engine.RefreshOptions{})
	if err != nil || !res.HasDrift() || res.Drift[0].Name != "a" {
		t.Errorf("refresh: %+v %v", res, err)
	}
	if a := change(w.planAll(cfg3), "a"); a.Action != plan.Update || prop(a, "value").Old != "drifted" {
		t.Errorf("plan after drift: %+v", a)
	}
	// Written into state by a refresh, the drift is still planned by a
	// plan that reads only what the change touches.
	if res, err := w.engine(cfg3).Refresh(t.Context(), engine.RefreshOptions{WriteState: true}); err != nil || !res.Written {
		t.Fatalf("refresh writing state: %+v %v", res, err)
	}
	if a := change(w.plan(cfg3), "a"); a.Action != plan.Update || prop(a, "value").Old != "drifted" {
		t.Errorf("plan after a refresh wrote the drift: %+v", a)
	}

	// Destroy.
	r, err := w.engine(cfg3).Destroy(t.Context(), engine.ApplyOptions{AutoApprove: true})
	if err != nil || r.Err() != nil {
		t.Fatalf("destroy: %v %v", err, r.Err())
	}
	if left, _ := filepath.Glob(filepath.Join(w.cloud, "*.json")); len(left) != 0 {
		t.Errorf("left in the cloud after destroy: %v", left)
	}
	if renew && starts < 20 {
		t.Errorf("%d provider processes started, want one for about every call", starts)
	}
}

// TestSchemaErrorsPositioned: what the provider's schema refuses is a
// list of diagnostics at file:line:col, all at once, before anything is
// planned; so is a reference to an attribute the schema lacks.
func TestSchemaErrorsPositioned(t *testing.T) {
	w := newWorld(t, tfplugintest.SDK)
	cfg := w.parse(`providers:
  TP: { source: kyku/TP, config: { dir: CLOUD } }
resources:
  a:
    type: TP_item
    properties:
      nmae: a
      value: "has spaces"
      rule:
        - { port: eighty }
  b:
    type: TP_item
    properties: { name: b, value: "${a.revison}" }
  c: { type: TP_itme, properties: { name: c } }
`)
	_, err := w.engine(cfg).Plan(t.Context(), cfg)
	var ds diag.Diagnostics
	if !errors.As(err, &ds) {
		t.Fatalf("plan: %v, want diagnostics", err)
	}
	var got []string
	for _, d := range ds {
		got = append(got, d.String())
	}
	want := []string{
		`kyku.yaml:4:3: resource "a" (sdktest_item): property "name": the argument "name" is required`,
		`kyku.yaml:7:7: resource "a" (sdktest_item): property "nmae": unsupported argument "nmae" (did you mean "name"?)`,
		`kyku.yaml:10:13: resource "a" (sdktest_item): property "rule[0].port": a number is required`,
		`kyku.yaml:13:28: resource "b" (sdktest_item): property "value": "${a.revison}": sdktest_item has no attribute "revison" (did you mean "revision"?)`,
		`kyku.yaml:14:3: resource "c" (sdktest_itme): provider sdktest (registry.opentofu.org/kyku/sdktest) has no resource type "sdktest_itme" (did you mean "sdktest_item"?)`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	_ = value.Unknown
}
