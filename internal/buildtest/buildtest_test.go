package buildtest

import (
	"debug/buildinfo"
	"path/filepath"
	"testing"
)

// TestCommandBuildsAsShipped: the binary Command builds carries the
// settings vet compiles with (.ci/run), whatever the environment says.
func TestCommandBuildsAsShipped(t *testing.T) {
	t.Setenv("CGO_ENABLED", "1")
	bin := filepath.Join(t.TempDir(), "hello")
	if out, err := Command("-o", bin, "./testdata/hello").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range info.Settings {
		got[s.Key] = s.Value
	}
	for key, want := range map[string]string{"CGO_ENABLED": "0", "-trimpath": "true"} {
		if got[key] != want {
			t.Errorf("build setting %s = %q, want %q (all: %v)", key, got[key], want, info.Settings)
		}
	}
}
