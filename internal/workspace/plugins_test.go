package workspace_test

import (
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/sim"
	"github.com/kyku/action/internal/tfinstall"
	"github.com/kyku/action/internal/tfplugin/tfplugintest"
	"github.com/kyku/action/internal/workspace"
)

// TestProvidersNeedTheLock: a configuration's Terraform providers are
// refused until kyku init has locked them (at the source's position), a
// bad source or constraint is a positioned error, and after Init the
// workspace's provider routes the provider's types to it.
func TestProvidersNeedTheLock(t *testing.T) {
	dir := t.TempDir()
	mirror := tfplugintest.Mirror(t, filepath.Join(dir, "mirror"), tfplugintest.SDK)
	write := configWriter(t, dir)
	s := workspace.Settings{BaseDir: dir, Plugins: workspace.Plugins{Mirror: mirror}}
	reg := provider.Registry{"sim": sim.Factory}
	ctx := t.Context()
	cfg := write("providers:\n  sdktest: { source: kyku/sdktest, version: \">= 0.1\" }\nresources: {}\n")
	_, err := workspace.Provider(ctx, cfg, s, reg)
	var ds diag.Diagnostics
	if !errors.As(err, &ds) || !errors.Is(err, workspace.ErrNotLocked) || !strings.HasPrefix(ds[0].String(), filepath.Join(dir, "kyku.yaml")+":2:") {
		t.Fatalf("before init: %v", err)
	}
	bad := write("providers:\n  sdktest: { source: \"kyku/sdktest\", version: \"~> banana\" }\nresources: {}\n")
	if _, err := workspace.Provider(ctx, bad, s, reg); err == nil || !strings.Contains(err.Error(), `kyku.yaml:2:`) || !strings.Contains(err.Error(), `version "~> banana"`) {
		t.Errorf("a bad constraint: %v", err)
	}
	got, lockPath, err := workspace.Init(ctx, cfg, s, false)
	if err != nil || len(got) != 1 || got[0].Version != "0.1.0" || lockPath != workspace.LockPath(dir) {
		t.Fatalf("init: %v %+v %s", err, got, lockPath)
	}
	p, err := workspace.Provider(ctx, cfg, s, reg)
	if err != nil {
		t.Fatalf("after init: %v", err)
	}
	defer workspace.Release(p)
	if !p.Schema("sdktest_item").OwnState || p.Schema("Vm").OwnState || p.Name() != "sim" {
		t.Errorf("the workspace's provider does not route the provider's types: %T", p)
	}
}

// TestSecondConfigurationOfAProvider: a source configured twice is
// installed and locked once; kyku init reports it for each local name; the
// second configuration's types route to a provider of its own; two
// configurations asking for different versions are refused at the
// second one's version.
func TestSecondConfigurationOfAProvider(t *testing.T) {
	dir := t.TempDir()
	mirror := tfplugintest.Mirror(t, filepath.Join(dir, "mirror"), tfplugintest.SDK)
	load := configWriter(t, dir)
	s := workspace.Settings{BaseDir: dir, Plugins: workspace.Plugins{Mirror: mirror}}
	ctx := t.Context()

	differ := load("providers:\n  sdktest: { source: kyku/sdktest, version: \">= 0.1\" }\n  west: { source: kyku/sdktest, version: \"0.1.0\" }\nresources: {}\n")
	if _, _, err := workspace.Init(ctx, differ, s, false); err == nil || !strings.Contains(err.Error(), `kyku.yaml:3:`) || !strings.Contains(err.Error(), `provider "west": version "0.1.0" differs from ">= 0.1" of provider "sdktest"`) {
		t.Errorf("two versions of one provider: %v", err)
	}

	cfg := load("providers:\n  sdktest: { source: kyku/sdktest, version: \">= 0.1\" }\n  west: { source: kyku/sdktest, version: \">= 0.1\" }\nresources: {}\n")
	got, lockPath, err := workspace.Init(ctx, cfg, s, false)
	if err != nil || len(got) != 2 || got[0].Version != "0.1.0" || got[1] != got[0] {
		t.Fatalf("init: %v %+v", err, got)
	}
	lock, err := os.ReadFile(lockPath)
	if err != nil || strings.Count(string(lock), `provider "registry.opentofu.org/kyku/sdktest"`) != 1 {
		t.Errorf("the lock should name the source once: %v\n%s", err, lock)
	}
	p, err := workspace.Provider(ctx, cfg, s, provider.Registry{"sim": sim.Factory})
	if err != nil {
		t.Fatalf("after init: %v", err)
	}
	defer workspace.Release(p)
	if !p.Schema("west_item").OwnState || !p.Schema("sdktest_item").OwnState {
		t.Errorf("the workspace's provider does not route both configurations' types: %T", p)
	}
}

// configWriter returns a function that writes yaml as dir/kyku.yaml and
// loads it.
func configWriter(t *testing.T, dir string) func(yaml string) *config.Config {
	return func(yaml string) *config.Config {
		t.Helper()
		p := filepath.Join(dir, "kyku.yaml")
		if err := os.WriteFile(p, []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, err := config.Load(p)
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
}

// TestParseRenewGrowth: KYKU_PROVIDER_RENEW is "off" or a growth factor
// above 1; anything else is refused with the variable's name.
func TestParseRenewGrowth(t *testing.T) {
	for v, want := range map[string]float64{"off": -1, "2": 2, "1.5": 1.5, "10": 10} {
		if got, err := workspace.ParseRenewGrowth(v); err != nil || got != want {
			t.Errorf("%q: %v %v, want %v", v, got, err, want)
		}
	}
	for _, v := range []string{"1", "0.5", "0", "-2", "on", "Inf", "NaN", ""} {
		if _, err := workspace.ParseRenewGrowth(v); err == nil || !strings.Contains(err.Error(), "KYKU_PROVIDER_RENEW") {
			t.Errorf("%q: %v, want a refusal naming KYKU_PROVIDER_RENEW", v, err)
		}
	}
}

// registryRecorder is an HTTP transport that plays a registry without the
// network: it answers service discovery and records every other path
// asked for, answering 404.
type registryRecorder struct {
	mu    sync.Mutex
	paths []string
}

func (r *registryRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	body := "not found"
	status := http.StatusNotFound
	if req.URL.Path == "/.well-known/terraform.json" {
		body, status = `{"providers.v1": "/v1/providers/"}`, http.StatusOK
	} else {
		r.mu.Lock()
		r.paths = append(r.paths, req.URL.Host+req.URL.Path)
		r.mu.Unlock()
	}
	return &http.Response{StatusCode: status, Status: http.StatusText(status), Body: io.NopCloser(strings.NewReader(body)), Request: req, Header: http.Header{}}, nil
}

// TestMirrorProvidersCarriesHashiCorpHostLock: kyku providers mirror
// reads the lock beside the configuration as init does: a lock
// Terraform wrote, naming hashicorp/fake on HashiCorp's registry host,
// has the default host's hashicorp/fake mirrored at its version (not
// refused as missing from the lock), and says so.
func TestMirrorProvidersCarriesHashiCorpHostLock(t *testing.T) {
	dir := t.TempDir()
	cfg := configWriter(t, dir)("providers:\n  fake: { source: hashicorp/fake, version: \">= 1.0\" }\nresources: {}\n")
	lock := "provider \"registry.terraform.io/hashicorp/fake\" {\n  version = \"1.0.0\"\n  hashes = [\n    \"zh:" + strings.Repeat("ab", 32) + "\",\n  ]\n}\n"
	if err := os.WriteFile(workspace.LockPath(dir), []byte(lock), 0o644); err != nil {
		t.Fatal(err)
	}
	rec := &registryRecorder{}
	var notices []string
	s := workspace.Settings{BaseDir: dir, Plugins: workspace.Plugins{
		HTTP: &http.Client{Transport: rec}, Notice: func(line string) { notices = append(notices, line) },
	}}
	_, err := workspace.MirrorProviders(t.Context(), cfg, s, t.TempDir(), []tfinstall.Platform{{OS: "linux", Arch: "amd64"}})
	if err == nil || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("MirrorProviders: %v, want the recorder's not found", err)
	}
	want := []string{"registry.opentofu.org/v1/providers/hashicorp/fake/1.0.0/download/linux/amd64"}
	if d := cmp.Diff(want, rec.paths); d != "" {
		t.Errorf("asked the registry for (-want +got):\n%s", d)
	}
	if len(notices) != 1 || !strings.Contains(notices[0], "registry.opentofu.org/hashicorp/fake takes the version of registry.terraform.io/hashicorp/fake (1.0.0)") {
		t.Errorf("notices: %q", notices)
	}
}
