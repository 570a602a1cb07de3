package tfinstall

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var otherPlatform = Platform{"plan9", "mips"}

// readJSON reads a JSON file into a generic value.
func readJSON(t *testing.T, path string) any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return v
}

// TestMirrorWriter: `kyku providers mirror` writes what `tofu providers
// mirror` writes: the registry's archives (checked as installs check
// them) for each platform asked, and index files listing every archive
// of the directory with its h1 and zh hashes; the result installs with
// no network, as a filesystem mirror. With a lock, its versions are
// mirrored.
func TestMirrorWriter(t *testing.T) {
	reg := newTestRegistry(t)
	for _, v := range []string{"1.0.0", "1.1.0", "2.0.0"} {
		reg.publish(t, "kyku", "fake", v, fakePackage("fake", v))
	}
	src := reg.source("kyku", "fake")
	dir := t.TempDir()
	ctx := t.Context()
	req := []Requirement{{src, mustConstraints(t, "~> 1.0")}}
	w := &MirrorWriter{Dir: dir, Registry: reg.client(), Platforms: []Platform{testPlatform, otherPlatform}}

	got, err := w.Write(ctx, req, &Lock{})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]Mirrored{{Source: src, Version: "1.1.0", Platforms: []Platform{testPlatform, otherPlatform}}}, got); d != "" {
		t.Errorf("mirrored (-want +got):\n%s", d)
	}
	pdir := filepath.Join(dir, src.Host, "kyku", "fake")
	index := func(v string) map[string]any {
		archives := map[string]any{}
		for _, p := range []Platform{testPlatform, otherPlatform} {
			path := filepath.Join(pdir, archiveFileName(src, v, p))
			reg.mu.Lock()
			served := reg.archives["kyku/fake/"+v][p.String()]
			reg.mu.Unlock()
			if data, err := os.ReadFile(path); err != nil || string(data) != string(served) {
				t.Errorf("%s is not the registry's archive: %v", path, err)
			}
			h1, err := archiveH1(path, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			archives[p.String()] = map[string]any{"url": filepath.Base(path), "hashes": []any{string(h1), string(zhOf(t, path))}}
		}
		return map[string]any{"archives": archives}
	}
	if d := cmp.Diff(map[string]any{"versions": map[string]any{"1.1.0": map[string]any{}}}, readJSON(t, filepath.Join(pdir, "index.json"))); d != "" {
		t.Errorf("index.json (-want +got):\n%s", d)
	}
	if d := cmp.Diff(index("1.1.0"), readJSON(t, filepath.Join(pdir, "1.1.0.json"))); d != "" {
		t.Errorf("1.1.0.json (-want +got):\n%s", d)
	}
	if h := index("1.1.0")["archives"].(map[string]any)[testPlatform.String()].(map[string]any)["hashes"].([]any)[0]; h != string(h1Of(t, fakePackage("fake", "1.1.0"))) {
		t.Errorf("the index's h1 %v is not the package's", h)
	}

	// The directory is a filesystem mirror: it installs with no registry.
	lock := &Lock{}
	in := &Installer{Mirror: dir, CacheDir: t.TempDir(), Platform: testPlatform}
	if got, err := in.Install(ctx, req, lock, false); err != nil || got[0].Version != "1.1.0" {
		t.Fatalf("installing from the written mirror: %+v %v", got, err)
	}

	// With a lock, its version; the index keeps the archives already there.
	lock.Providers[src].Version = "1.0.0"
	lock.Providers[src].Hashes = nil
	if got, err := w.Write(ctx, req, lock); err != nil || got[0].Version != "1.0.0" {
		t.Fatalf("with a lock of 1.0.0: %+v %v", got, err)
	}
	if d := cmp.Diff(map[string]any{"versions": map[string]any{"1.0.0": map[string]any{}, "1.1.0": map[string]any{}}}, readJSON(t, filepath.Join(pdir, "index.json"))); d != "" {
		t.Errorf("index.json after the second version (-want +got):\n%s", d)
	}
	if d := cmp.Diff(index("1.0.0"), readJSON(t, filepath.Join(pdir, "1.0.0.json"))); d != "" {
		t.Errorf("1.0.0.json (-want +got):\n%s", d)
	}
}

// TestMirrorWriterRefuses: what the installer would refuse is not
// mirrored, and leaves nothing under a package's name: a package not
// signed by the registry's key, an archive whose zh the lock lacks, a
// provider the lock lacks, a locked version the constraint no longer
// allows. A platform the registry lacks fails alone.
func TestMirrorWriterRefuses(t *testing.T) {
	other := Hash("zh:" + strings.Repeat("ab", 32))
	for _, tc := range []struct {
		name   string
		spoil  func(*testRegistry)
		lock   func(src Source) *Lock
		want   string
		wantOK []Platform // mirrored all the same
	}{
		{name: "signed by another key", spoil: func(r *testRegistry) { r.signWithOther = true }, want: "does not verify with the registry's keys"},
		{name: "an archive the lock's zh hashes lack", lock: func(src Source) *Lock {
			return &Lock{Providers: map[Source]*Locked{src: {Version: "1.0.0", Hashes: []Hash{other}}}}
		}, want: "matches none of the hashes"},
		{name: "a provider the lock lacks", lock: func(Source) *Lock {
			return &Lock{Providers: map[Source]*Locked{{DefaultHost, "kyku", "else"}: {Version: "1.0.0"}}}
		}, want: "is not in the lock file: run \"kyku init\""},
		{name: "a locked version outside the constraint", lock: func(src Source) *Lock {
			return &Lock{Providers: map[Source]*Locked{src: {Version: "0.9.0"}}}
		}, want: "kyku init --upgrade"},
		{name: "a platform the registry lacks", want: "windows_386", wantOK: []Platform{testPlatform}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg := newTestRegistry(t)
			reg.publish(t, "kyku", "fake", "1.0.0", fakePackage("fake", "1.0.0"))
			if tc.spoil != nil {
				tc.spoil(reg)
			}
			src := reg.source("kyku", "fake")
			lock := &Lock{}
			if tc.lock != nil {
				lock = tc.lock(src)
			}
			dir := t.TempDir()
			w := &MirrorWriter{Dir: dir, Registry: reg.client(), Platforms: []Platform{testPlatform, {"windows", "386"}}}
			if tc.wantOK == nil {
				w.Platforms = w.Platforms[:1]
			}
			got, err := w.Write(t.Context(), []Requirement{{src, mustConstraints(t, ">= 1.0")}}, lock)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Write: %v, want %q", err, tc.want)
			}
			var mirrored []Platform
			for _, m := range got {
				mirrored = append(mirrored, m.Platforms...)
			}
			if d := cmp.Diff(tc.wantOK, mirrored); d != "" {
				t.Errorf("mirrored (-want +got):\n%s", d)
			}
			var files []string
			for _, f := range filesUnder(t, dir) {
				files = append(files, filepath.Base(f))
			}
			var want []string
			if len(tc.wantOK) > 0 {
				want = append(want, "1.0.0.json", "index.json")
			}
			for _, p := range tc.wantOK {
				want = append(want, archiveFileName(src, "1.0.0", p))
			}
			if d := cmp.Diff(want, files, cmpopts.SortSlices(func(a, b string) bool { return a < b })); d != "" {
				t.Errorf("files in the mirror, nothing half-done (-want +got):\n%s", d)
			}
			var ce *ChecksumError
			if strings.Contains(tc.want, "hashes") && !errors.As(err, &ce) {
				t.Errorf("a changed archive: %v, want a ChecksumError", err)
			}
		})
	}
}
