package workspace_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/sim"
	"github.com/kyku/action/internal/tfinstall"
	"github.com/kyku/action/internal/tfplugin"
	"github.com/kyku/action/internal/tfplugin/tfplugintest"
	"github.com/kyku/action/internal/workspace"
)

// TestConfinedProvidersRefusedWithoutASandbox: where providers must run
// sandboxed and no sandbox can be had, every provider is refused with the
// reason, before anything is installed; a source Confine refuses is
// refused at its position.
func TestConfinedProvidersRefusedWithoutASandbox(t *testing.T) {
	dir := t.TempDir()
	mirror := tfplugintest.Mirror(t, filepath.Join(dir, "mirror"), tfplugintest.SDK)
	write := configWriter(t, dir)
	cfg := write("providers:\n  sdktest: { source: kyku/sdktest, version: \">= 0.1\" }\nresources: {}\n")
	s := workspace.Settings{BaseDir: dir, Plugins: workspace.Plugins{Mirror: mirror}}
	ctx := t.Context()
	if _, _, err := workspace.Init(ctx, cfg, s, false); err != nil {
		t.Fatal(err)
	}
	s.Plugins.CacheDir = filepath.Join(dir, "fresh-cache")
	reg := provider.Registry{"sim": sim.Factory}
	for _, tc := range []struct {
		name    string
		confine func(tfinstall.Source) (workspace.Confinement, error)
		want    string
	}{
		{"no bubblewrap", func(tfinstall.Source) (workspace.Confinement, error) {
			return workspace.Confinement{Sandbox: tfplugin.Sandbox{Bwrap: "kyku-no-such-bwrap", Network: tfplugin.NetworkHost}}, nil
		}, "Terraform providers refused: no sandbox available: bubblewrap (kyku-no-such-bwrap) is not installed"},
		{"source refused", func(src tfinstall.Source) (workspace.Confinement, error) {
			return workspace.Confinement{}, fmt.Errorf("no grant for %s", src.Type)
		}, `Terraform providers refused: ` + filepath.Join(dir, "kyku.yaml") + `:2:22: provider "sdktest" (registry.opentofu.org/kyku/sdktest): no grant for sdktest`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s.Plugins.Confine = tc.confine
			_, err := workspace.Provider(ctx, cfg, s, reg)
			if err == nil || !errors.Is(err, workspace.ErrProvidersRefused) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
			if left, _ := filepath.Glob(filepath.Join(s.Plugins.CacheDir, "*")); len(left) > 0 {
				t.Errorf("installed before the refusal: %v", left)
			}
		})
	}
}

func TestParseDeny(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{"", "[]", ""},
		{"10.0.0.0/8, 192.168.1.7 fd00::/8\n172.16.0.1/12", "[10.0.0.0/8 192.168.1.7/32 fd00::/8 172.16.0.0/12]", ""},
		{"10.0.0.0/8,banana", "", `KYKU_PROVIDER_DENY: "banana" is not an address or a CIDR range such as 10.0.0.0/8`},
	} {
		got, err := workspace.ParseDeny(tc.in)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%q: err %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || fmt.Sprint(got) != tc.want && !(tc.want == "[]" && len(got) == 0) {
			t.Errorf("%q: %v %v, want %s", tc.in, got, err, tc.want)
		}
	}
}
