package tfinstall

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func fakePackage(typ, version string) map[string][]byte {
	return map[string][]byte{
		"terraform-provider-" + typ + "_v" + version: []byte("#!/bin/sh\n# " + typ + " " + version + "\n"),
		"LICENSE": []byte("test licence\n"),
	}
}

func TestRegistryInstallAndLock(t *testing.T) {
	reg := newTestRegistry(t)
	reg.publish(t, "kyku", "fake", "1.0.0", fakePackage("fake", "1.0.0"))
	reg.publish(t, "kyku", "fake", "1.1.0", fakePackage("fake", "1.1.0"))
	reg.publish(t, "kyku", "fake", "2.0.0", fakePackage("fake", "2.0.0"))
	src := reg.source("kyku", "fake")
	in := &Installer{CacheDir: t.TempDir(), Registry: reg.client(), Platform: testPlatform}
	ctx := t.Context()
	req := []Requirement{{src, mustConstraints(t, "~> 1.0")}}
	lock := &Lock{}

	got, err := in.Install(ctx, req, lock, false)
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Version != "1.1.0" || filepath.Base(got[0].Executable) != "terraform-provider-fake_v1.1.0" {
		t.Fatalf("installed %+v", got[0])
	}
	if fi, err := os.Stat(got[0].Executable); err != nil || fi.Mode()&0o111 == 0 {
		t.Errorf("the executable is not executable: %v %v", fi, err)
	}
	entry := lock.Providers[src]
	var h1, zh int
	for _, h := range entry.Hashes {
		switch h.Kind() {
		case "h1":
			h1++
		case "zh":
			zh++
		}
	}
	// h1 of the unpacked package here, zh of every platform's archive
	// from the signed SHA256SUMS.
	if entry.Version != "1.1.0" || h1 != 1 || zh != 2 {
		t.Errorf("lock entry %+v", entry)
	}
	if n := reg.archivesServed(); n != 1 {
		t.Errorf("%d archives downloaded, want 1", n)
	}

	// The next run uses the cached package: no download.
	if _, err := in.Install(ctx, req, lock, false); err != nil {
		t.Fatal(err)
	}
	if n := reg.archivesServed(); n != 1 {
		t.Errorf("the cached package was downloaded again (%d downloads)", n)
	}

	// A cached binary changed behind Kyku's back is never handed out: it
	// is fetched again, and the fetched archive is checked against the lock.
	if err := os.WriteFile(got[0].Executable, []byte("#!/bin/sh\n# evil\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	again, err := in.Install(ctx, req, lock, false)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(again[0].Executable); strings.Contains(string(b), "evil") {
		t.Error("the changed cached binary was handed out")
	}

	// The registry serving another (validly signed) archive for the
	// locked version is refused before anything is unpacked.
	reg.mu.Lock()
	reg.archives["kyku/fake/1.1.0"][testPlatform.String()] = zipOf(t, fakePackage("fake", "1.1.0-evil"))
	reg.mu.Unlock()
	os.RemoveAll(in.CacheDir)
	_, err = in.Install(ctx, req, lock, false)
	var ce *ChecksumError
	if !errors.As(err, &ce) {
		t.Fatalf("a republished archive: %v, want a ChecksumError", err)
	}
	if _, err := os.Stat(filepath.Dir(again[0].Executable)); !os.IsNotExist(err) {
		t.Errorf("the refused package was unpacked: %v", err)
	}
}

// TestRegistryRefusesUntrustedPackages: each way a package can fail its
// checks is refused, and leaves no package behind.
func TestRegistryRefusesUntrustedPackages(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spoil func(*testRegistry)
		want  string
	}{
		{"signed by a key the registry does not name", func(r *testRegistry) { r.signWithOther = true }, "does not verify with the registry's keys"},
		{"SHA256SUMS changed after signing", func(r *testRegistry) { r.tamperSums = true }, "does not verify"},
		{"announced checksum differs from the signed one", func(r *testRegistry) { r.wrongShasum = true }, "the registry announced"},
		{"archive bytes differ from the signed checksum", func(r *testRegistry) { r.swapArchive = []byte("PK\x03\x04 not the package") }, "the signed SHA256SUMS says"},
		{"no signing key", func(r *testRegistry) { r.noKeys = true }, "names no signing key"},
		{"archive over plain http", func(r *testRegistry) { r.plainHTTP = true }, "only https is allowed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg := newTestRegistry(t)
			reg.publish(t, "kyku", "fake", "1.0.0", fakePackage("fake", "1.0.0"))
			tc.spoil(reg)
			cache := t.TempDir()
			in := &Installer{CacheDir: cache, Registry: reg.client(), Platform: testPlatform}
			lock := &Lock{}
			_, err := in.Install(t.Context(), []Requirement{{Source: reg.source("kyku", "fake")}}, lock, false)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Install: %v, want %q", err, tc.want)
			}
			if len(lock.Providers) != 0 {
				t.Errorf("the refused provider was locked: %+v", lock.Providers)
			}
			var left []string
			filepath.WalkDir(cache, func(path string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					left = append(left, path)
				}
				return nil
			})
			if len(left) != 0 {
				t.Errorf("files left in the cache: %v", left)
			}
		})
	}
}

func TestRegistryRefusesEscapingArchives(t *testing.T) {
	for _, name := range []string{"../evil", "/abs/evil", "a/../../evil", `a\..\evil`} {
		reg := newTestRegistry(t)
		files := fakePackage("fake", "1.0.0")
		files[name] = []byte("x")
		reg.publish(t, "kyku", "fake", "1.0.0", files)
		cache := t.TempDir()
		in := &Installer{CacheDir: cache, Registry: reg.client(), Platform: testPlatform}
		_, err := in.Install(t.Context(), []Requirement{{Source: reg.source("kyku", "fake")}}, &Lock{}, false)
		if err == nil || !strings.Contains(err.Error(), "refused entry") {
			t.Errorf("an archive holding %q: %v", name, err)
		}
		if _, err := os.Stat(filepath.Join(filepath.Dir(cache), "evil")); err == nil {
			t.Errorf("%q was written outside the cache", name)
		}
	}
}

func TestRegistryErrorsNameWhatFailed(t *testing.T) {
	reg := newTestRegistry(t)
	in := &Installer{CacheDir: t.TempDir(), Registry: reg.client(), Platform: testPlatform}
	_, err := in.Install(t.Context(), []Requirement{{Source: reg.source("kyku", "absent")}}, &Lock{}, false)
	if err == nil || !strings.Contains(err.Error(), "list versions of "+reg.host()+"/kyku/absent") || !strings.Contains(err.Error(), "not found") {
		t.Errorf("an unknown provider: %v", err)
	}
	reg.publish(t, "kyku", "fake", "1.0.0", fakePackage("fake", "1.0.0"))
	_, err = in.Install(t.Context(), []Requirement{{reg.source("kyku", "fake"), mustConstraints(t, ">= 50")}}, &Lock{}, false)
	// 99.0.0 speaks only protocol 4: it is not offered.
	if err == nil || !strings.Contains(err.Error(), "(it has 1.0.0)") {
		t.Errorf("no allowed version: %v", err)
	}
}
