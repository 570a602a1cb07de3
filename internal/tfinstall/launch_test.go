package tfinstall

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kyku/action/internal/tfplugin"
	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// launch starts an installed provider and reads its schema.
func launch(t *testing.T, got Installed, wantType string) {
	t.Helper()
	p, err := tfplugin.Start(t.Context(), tfplugin.Config{Name: got.Source.String(), Path: got.Executable})
	if err != nil {
		t.Fatalf("start %s: %v", got.Executable, err)
	}
	defer p.Close()
	s, err := p.Schema(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if s.ResourceTypes[wantType] == nil {
		t.Errorf("%s: no %s in its schema", got.Source, wantType)
	}
}

// TestProvidersFromTheRegistryLaunch: the test providers, built from
// source, published on the test registry, installed, locked, launched;
// then installed again from the lock file alone.
func TestProvidersFromTheRegistryLaunch(t *testing.T) {
	reg := newTestRegistry(t)
	var reqs []Requirement
	for _, tp := range []tfplugintest.Provider{tfplugintest.Framework, tfplugintest.SDK} {
		bin, err := os.ReadFile(tfplugintest.Build(t, tp))
		if err != nil {
			t.Fatal(err)
		}
		reg.publish(t, "kyku", tp.Type, tp.Version, map[string][]byte{tp.Executable(): bin})
		reqs = append(reqs, Requirement{Source: reg.source("kyku", tp.Type), Constraints: mustConstraints(t, tp.Version)})
	}
	dir := t.TempDir()
	in := &Installer{CacheDir: CacheDirOf(dir), Registry: reg.client(), Platform: testPlatform}
	lock := &Lock{}
	got, err := in.Install(t.Context(), reqs, lock, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range got {
		launch(t, g, g.Source.Type+"_item")
	}
	lockPath := filepath.Join(dir, LockFileName)
	if err := WriteLock(lockPath, lock); err != nil {
		t.Fatal(err)
	}
	back, err := ReadLock(lockPath)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := in.Install(t.Context(), reqs, back, false); err != nil {
		t.Fatalf("install from the lock file: %v", err)
	}
	if n := reg.archivesServed(); n != 2 {
		t.Errorf("%d downloads, want 2 (the second install uses the cache)", n)
	}
}

// TestProvidersFromTheMirrorLaunch: KYKU_PLUGIN_MIRROR names a mirror
// (injected here as the environment is everywhere in Kyku).
func TestProvidersFromTheMirrorLaunch(t *testing.T) {
	env := map[string]string{EnvMirror: tfplugintest.Mirror(t, t.TempDir(), tfplugintest.Framework, tfplugintest.SDK)}
	getenv := func(k string) string { return env[k] }
	in := &Installer{Mirror: getenv(EnvMirror), Platform: testPlatform}
	var reqs []Requirement
	for _, tp := range []tfplugintest.Provider{tfplugintest.Framework, tfplugintest.SDK} {
		src, err := ParseSource("kyku/" + tp.Type)
		if err != nil {
			t.Fatal(err)
		}
		reqs = append(reqs, Requirement{Source: src})
	}
	got, err := in.Install(t.Context(), reqs, &Lock{}, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range got {
		launch(t, g, g.Source.Type+"_item")
	}
}
