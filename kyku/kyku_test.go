package kyku_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/kyku"
)

type fixture struct {
	dir string
	sim *kyku.Provider
	e   *kyku.Engine
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	dir := t.TempDir()
	sim, err := kyku.SimProvider(filepath.Join(dir, "cloud"))
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{dir: dir, sim: sim, e: kyku.New(kyku.EngineOptions{StateDir: filepath.Join(dir, "state"), DeployPrefix: "t"})}
}

func (f *fixture) cloud(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(f.dir, "cloud", "*", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func mustConfig(t *testing.T, yaml string) *kyku.Config {
	t.Helper()
	cfg, err := kyku.ParseConfig("kyku.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// The zero options never apply or destroy, and say how to approve.
func TestZeroOptionsApplyNothing(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	cfg := mustConfig(t, example)
	_, err := f.e.Apply(ctx, cfg, kyku.ApplyOptions{Provider: f.sim}, nil)
	if !errors.Is(err, kyku.ErrNotApproved) || !strings.Contains(err.Error(), "AutoApprove") {
		t.Fatalf("apply without approval: %v", err)
	}
	if got := f.cloud(t); len(got) != 0 {
		t.Fatalf("cloud after a refused apply: %v", got)
	}
	if _, err := f.e.Apply(ctx, cfg, kyku.ApplyOptions{Provider: f.sim, AutoApprove: true}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := f.e.Destroy(ctx, kyku.DestroyOptions{Provider: f.sim}); !errors.Is(err, kyku.ErrNotApproved) {
		t.Fatalf("destroy without approval: %v", err)
	}
	if got := len(f.cloud(t)); got != 3 {
		t.Fatalf("a refused destroy changed the cloud: %d objects", got)
	}
}

// Confirm sees the public plan and can decline.
func TestConfirmDeclines(t *testing.T) {
	f := newFixture(t)
	var seen []string
	_, err := f.e.Apply(t.Context(), mustConfig(t, example), kyku.ApplyOptions{Provider: f.sim, Confirm: func(p *kyku.Plan) (bool, error) {
		for _, c := range p.Changes {
			seen = append(seen, c.Action.String()+" "+c.ResourceID)
		}
		return false, nil
	}}, nil)
	if !errors.Is(err, kyku.ErrNotConfirmed) {
		t.Fatalf("err = %v", err)
	}
	if diff := cmp.Diff([]string{"create net", "create db", "create web"}, seen); diff != "" {
		t.Errorf("plan shown to Confirm (-want +got):\n%s", diff)
	}
	if got := f.cloud(t); len(got) != 0 {
		t.Errorf("declined apply changed the cloud: %v", got)
	}
}

// A plan is refused once the state moved on.
func TestStalePlanRefused(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	cfg := mustConfig(t, example)
	p, err := f.e.Plan(ctx, cfg, kyku.PlanOptions{Provider: f.sim})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.e.Apply(ctx, cfg, kyku.ApplyOptions{Provider: f.sim, AutoApprove: true}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := f.e.Apply(ctx, nil, kyku.ApplyOptions{Provider: f.sim, AutoApprove: true}, p); !kyku.IsStale(err) {
		t.Fatalf("apply of a stale plan: %v", err)
	}
}

// Bad configuration is a *ConfigError with each problem at its position.
func TestConfigErrors(t *testing.T) {
	_, err := kyku.ParseConfig("infra.yaml", []byte("resources:\n  web:\n    type: Vm\n    properties: { network: \"${nope}\", image: debian-12 }\n"))
	var ce *kyku.ConfigError
	if !errors.As(err, &ce) || len(ce.Problems) == 0 {
		t.Fatalf("err = %v (%T), want a *ConfigError", err, err)
	}
	p := ce.Problems[0]
	if p.File != "infra.yaml" || p.Line != 4 || !strings.Contains(p.Message, "nope") {
		t.Errorf("problem = %+v, want infra.yaml line 4 naming nope", p)
	}
	if !strings.HasPrefix(err.Error(), "infra.yaml:4:") {
		t.Errorf("Error() = %q", err.Error())
	}

	// A protected resource the plan would destroy is a ConfigError too.
	f := newFixture(t)
	ctx := t.Context()
	protected := strings.Replace(example, "  web:\n", "  web:\n    protect: true\n", 1)
	if _, err := f.e.Apply(ctx, mustConfig(t, protected), kyku.ApplyOptions{Provider: f.sim, AutoApprove: true}, nil); err != nil {
		t.Fatal(err)
	}
	_, err = f.e.Destroy(ctx, kyku.DestroyOptions{Provider: f.sim, AutoApprove: true})
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), `"web" is protected`) {
		t.Fatalf("destroy of a protected resource: %v (%T)", err, err)
	}
}

// A Config is not changed by the calls that use it (auto-subnets go to a
// copy), so it can be planned again and shared.
func TestConfigReusable(t *testing.T) {
	f := newFixture(t)
	cfg := mustConfig(t, "resources:\n  net:\n    type: Vpc\n    properties: { cidr: 10.0.0.0/16, distributeAcrossAzs: 2 }\n")
	before := cfg.Resources()
	for i := 0; i < 2; i++ {
		p, err := f.e.Plan(t.Context(), cfg, kyku.PlanOptions{Provider: f.sim})
		if err != nil {
			t.Fatal(err)
		}
		if p.Counters.Create != 5 {
			t.Fatalf("plan %d: %+v", i, p.Counters)
		}
	}
	if _, err := f.e.BuildGraph(cfg); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, cfg.Resources()); diff != "" {
		t.Errorf("config changed (-before +after):\n%s", diff)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "state", "state.json")); !os.IsNotExist(err) {
		t.Errorf("Plan wrote a state (%v)", err)
	}
}

// Sensitive values never appear in a public plan or result.
func TestSensitiveMasked(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	withSecret := func(s string) *kyku.Config {
		return mustConfig(t, "resources:\n  web:\n    type: Vm\n    properties: { image: debian-12, userData: \""+s+"\" }\n")
	}
	if _, err := f.e.Apply(ctx, withSecret("hunter2"), kyku.ApplyOptions{Provider: f.sim, AutoApprove: true}, nil); err != nil {
		t.Fatal(err)
	}
	p, err := f.e.Plan(ctx, withSecret("swordfish"), kyku.PlanOptions{Provider: f.sim})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range p.Changes {
		for _, pc := range c.Properties {
			if pc.Path == "userData" && (pc.Old != kyku.Masked || pc.New != kyku.Masked || !pc.Sensitive) {
				t.Errorf("userData change shown as %v → %v", pc.Old, pc.New)
			}
		}
	}
	if s := p.String(); strings.Contains(s, "hunter2") || strings.Contains(s, "swordfish") {
		t.Errorf("plan text shows a secret:\n%s", s)
	}
}

// The exported API mentions no internal type: every type reachable from
// an exported function, method or field is this package's or the
// standard library's.
func TestNoInternalTypesExported(t *testing.T) {
	roots := []any{
		kyku.New, kyku.ParseConfig, kyku.LoadConfig, kyku.NewProvider, kyku.SimProvider, kyku.IsStale,
		&kyku.Engine{}, &kyku.Config{}, &kyku.Plan{}, &kyku.Provider{}, &kyku.Graph{}, &kyku.ApplyResult{},
		&kyku.RefreshResult{}, &kyku.StateFile{}, &kyku.ConfigError{},
		kyku.ApplyOptions{}, kyku.DestroyOptions{}, kyku.PlanOptions{}, kyku.RefreshOptions{}, kyku.OutputOptions{}, kyku.EngineOptions{},
	}
	if bad := internalTypes(roots...); len(bad) > 0 {
		t.Errorf("the exported API reaches internal types:\n%s", strings.Join(bad, "\n"))
	}
	// The check itself sees an internal type where there is one.
	if bad := internalTypes(struct{ P *plan.Plan }{}); len(bad) == 0 {
		t.Error("internalTypes missed plan.Plan")
	}
}

// internalTypes walks the types reachable from roots through exported
// methods and fields and lists those of an internal package.
func internalTypes(roots ...any) []string {
	var bad []string
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type, path string)
	walk = func(t reflect.Type, path string) {
		if seen[t] {
			return
		}
		seen[t] = true
		if strings.Contains(t.PkgPath(), "/internal/") {
			bad = append(bad, path+": "+t.String())
			return
		}
		for i := 0; i < t.NumMethod(); i++ {
			m := t.Method(i)
			walk(m.Type, path+"."+m.Name)
		}
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Chan:
			walk(t.Elem(), path)
		case reflect.Map:
			walk(t.Key(), path)
			walk(t.Elem(), path)
		case reflect.Func:
			for i := 0; i < t.NumIn(); i++ {
				walk(t.In(i), path)
			}
			for i := 0; i < t.NumOut(); i++ {
				walk(t.Out(i), path)
			}
		case reflect.Struct:
			for i := 0; i < t.NumField(); i++ {
				if f := t.Field(i); f.IsExported() {
					walk(f.Type, path+"."+f.Name)
				}
			}
		}
	}
	for _, r := range roots {
		walk(reflect.TypeOf(r), reflect.TypeOf(r).String())
	}
	return bad
}

const perEnv = `variables:
  keys: { type: number, default: 1, min: 1, max: 5 }
environments:
  staging: {}
  prod: { variables: { keys: 3 } }
resources:
  deploy:
    type: SshKey
    count: "${var.keys}"
    properties: { publicKey: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDeploy${count.index}" }
`

// A configuration is loaded with one environment's values: prod plans
// three keys, staging one, --var-like Vars beat both; a prod config is
// refused in staging's state.
func TestConfigForAnEnvironment(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	creates := func(env string, vars map[string]string) int {
		t.Helper()
		cfg, err := kyku.ParseConfigFor("kyku.yaml", []byte(perEnv), kyku.ConfigOptions{Env: env, Vars: vars})
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Env() != env {
			t.Errorf("Env() = %q, want %q", cfg.Env(), env)
		}
		p, err := f.e.Plan(ctx, cfg, kyku.PlanOptions{Provider: f.sim, Env: env})
		if err != nil {
			t.Fatal(err)
		}
		return p.Counters.Create
	}
	if got := creates("prod", nil); got != 3 {
		t.Errorf("prod plans %d keys, want 3", got)
	}
	if got := creates("staging", nil); got != 1 {
		t.Errorf("staging plans %d keys, want 1", got)
	}
	if got := creates("staging", map[string]string{"keys": "2"}); got != 2 {
		t.Errorf("staging with keys=2 plans %d keys, want 2", got)
	}
	if _, err := kyku.ParseConfigFor("kyku.yaml", []byte(perEnv), kyku.ConfigOptions{Env: "prod", Vars: map[string]string{"keys": "9"}}); err == nil || !strings.Contains(err.Error(), "keys") {
		t.Errorf("keys=9 beyond max 5: err = %v", err)
	}

	prod, err := kyku.ParseConfigFor("kyku.yaml", []byte(perEnv), kyku.ConfigOptions{Env: "prod"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.e.Plan(ctx, prod, kyku.PlanOptions{Provider: f.sim, Env: "staging"}); err == nil || !strings.Contains(err.Error(), `environment "prod", not "staging"`) {
		t.Errorf("prod's config planned in staging: err = %v", err)
	}
	if _, err := f.e.Apply(ctx, prod, kyku.ApplyOptions{Provider: f.sim, Env: "staging", AutoApprove: true}, nil); err == nil {
		t.Error("prod's config applied in staging")
	}
	if got := f.cloud(t); len(got) != 0 {
		t.Errorf("refused calls changed the cloud: %v", got)
	}
}

// A moved entry reaches the engine through the public API: a rename is a
// move, counted, and the cloud object stays the same one.
func TestMovedThroughThePublicAPI(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	const key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIMoved"
	before := mustConfig(t, "resources:\n  app-key: { type: SshKey, properties: { publicKey: \""+key+"\" } }\n")
	if _, err := f.e.Apply(ctx, before, kyku.ApplyOptions{Provider: f.sim, AutoApprove: true}, nil); err != nil {
		t.Fatal(err)
	}
	objects := f.cloud(t)
	after := mustConfig(t, "resources:\n  deploy-key: { type: SshKey, properties: { publicKey: \""+key+"\" } }\n"+
		"moved:\n  - { from: app-key, to: deploy-key }\n")
	p, err := f.e.Plan(ctx, after, kyku.PlanOptions{Provider: f.sim})
	if err != nil {
		t.Fatal(err)
	}
	if p.Counters.Move != 1 || p.Counters.Create+p.Counters.Destroy != 0 || len(p.Changes) != 1 ||
		p.Changes[0].Action != kyku.Move || p.Changes[0].MovedFrom != "app-key" {
		t.Fatalf("plan of a rename: %+v %+v", p.Counters, p.Changes)
	}
	if _, err := f.e.Apply(ctx, after, kyku.ApplyOptions{Provider: f.sim, AutoApprove: true}, p); err != nil {
		t.Fatal(err)
	}
	st, err := f.e.ReadState(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := st.Resources["deploy-key"]; !ok || len(st.Resources) != 1 {
		t.Errorf("state after the move: %v", st.Resources)
	}
	if got := f.cloud(t); !reflect.DeepEqual(got, objects) {
		t.Errorf("the cloud changed on a move: %v, was %v", got, objects)
	}
}

// TestDefaultStateDirMovesTheOldDefault (issue 42): the default state
// directory is ./.kyku-state; state an older default kept in ./.kyku is
// moved there on first use, so the engine finds it (the plan changes
// nothing) and ./.kyku keeps only what is not Kyku's.
func TestDefaultStateDirMovesTheOldDefault(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	sim, err := kyku.SimProvider("cloud")
	if err != nil {
		t.Fatal(err)
	}
	cfg := mustConfig(t, example)
	old := kyku.New(kyku.EngineOptions{StateDir: ".kyku", DeployPrefix: "t"})
	if _, err := old.Apply(t.Context(), cfg, kyku.ApplyOptions{Provider: sim, AutoApprove: true}, nil); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(".kyku", "config.yaml"), []byte("execution: actions\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := kyku.New(kyku.EngineOptions{}).Plan(t.Context(), cfg, kyku.PlanOptions{Provider: sim})
	if err != nil {
		t.Fatal(err)
	}
	if p.HasChanges() {
		t.Errorf("the plan after the move changes the cloud: the state was not found\n%s", p)
	}
	if _, err := os.Stat(filepath.Join(".kyku-state", "state.json")); err != nil {
		t.Errorf("not moved to .kyku-state: %v", err)
	}
	left, _ := os.ReadDir(".kyku")
	if len(left) != 1 || left[0].Name() != "config.yaml" {
		t.Errorf(".kyku holds %v, want only config.yaml", left)
	}
}
