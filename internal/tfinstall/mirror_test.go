package tfinstall

import (
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// packArchive writes a packed mirror's archive of src holding files and
// returns its path.
func packArchive(t *testing.T, mirrorDir string, src Source, name string, files map[string][]byte) string {
	t.Helper()
	dir := filepath.Join(mirrorDir, src.Host, src.Namespace, src.Type)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, zipOf(t, files), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// h1Of is the h1 hash of files laid out in a directory, computed apart
// from any archive.
func h1Of(t *testing.T, files map[string][]byte) Hash {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, strings.TrimPrefix(name, "x:")), data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	h, err := HashDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func zhOf(t *testing.T, path string) Hash {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	return zipHash(sum[:])
}

// TestPackedMirror: a mirror laid out as `tofu providers mirror` writes
// it (archives, and index files that are not read) installs like an
// unpacked one: the newest allowed version built for the platform,
// unpacked into the cache, the lock recording its h1 hash as OpenTofu
// records a mirror's package. An archive matching one of the lock's
// hashes, zh or h1, is accepted; one matching none is refused, and
// nothing of it stays in the cache.
func TestPackedMirror(t *testing.T) {
	mirrorDir := t.TempDir()
	src := Source{DefaultHost, "kyku", "fake"}
	name := func(v string) string { return archiveFileName(src, v, testPlatform) }
	packArchive(t, mirrorDir, src, name("1.0.0"), fakePackage("fake", "1.0.0"))
	archive := packArchive(t, mirrorDir, src, name("1.1.0"), fakePackage("fake", "1.1.0"))
	packArchive(t, mirrorDir, src, name("2.0.0"), fakePackage("fake", "2.0.0"))
	packArchive(t, mirrorDir, src, archiveFileName(src, "1.2.0", Platform{"plan9", "mips"}), fakePackage("fake", "1.2.0"))
	for file, text := range map[string]string{"index.json": "not json", "1.1.0.json": "{}"} {
		os.WriteFile(filepath.Join(filepath.Dir(archive), file), []byte(text), 0o644)
	}
	ctx := t.Context()
	req := []Requirement{{src, mustConstraints(t, "~> 1.0")}}
	in := func() *Installer { return &Installer{Mirror: mirrorDir, CacheDir: t.TempDir(), Platform: testPlatform} }

	first := in()
	lock := &Lock{}
	got, err := first.Install(ctx, req, lock, false)
	if err != nil {
		t.Fatal(err)
	}
	h1 := h1Of(t, fakePackage("fake", "1.1.0"))
	if got[0].Version != "1.1.0" || !strings.HasPrefix(got[0].Executable, first.CacheDir) || filepath.Base(got[0].Executable) != "terraform-provider-fake_v1.1.0" {
		t.Fatalf("installed %+v, want 1.1.0 unpacked into the cache %s", got[0], first.CacheDir)
	}
	if d := cmp.Diff(&Locked{Version: "1.1.0", Constraints: "~> 1.0", Hashes: []Hash{h1}}, lock.Providers[src]); d != "" {
		t.Errorf("lock entry (-want +got):\n%s", d)
	}

	for _, tc := range []struct {
		name   string
		hashes []Hash
		change bool // the mirror's archive replaced by another package
		ok     bool
	}{
		{name: "the lock's h1", hashes: []Hash{h1}, ok: true},
		{name: "the archive's zh only, as a registry's lock has it", hashes: []Hash{zhOf(t, archive)}, ok: true},
		{name: "another package under the same name", hashes: []Hash{h1, zhOf(t, archive)}, change: true},
		{name: "hashes of something else", hashes: []Hash{h1Of(t, fakePackage("fake", "9")), "zh:" + Hash(strings.Repeat("ab", 32))}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := archive
			if tc.change {
				path = packArchive(t, t.TempDir(), src, name("1.1.0"), fakePackage("fake", "1.1.0-evil"))
			}
			mirrorCopy := t.TempDir()
			copyFile(t, path, filepath.Join(mirrorCopy, src.Host, src.Namespace, src.Type, name("1.1.0")))
			run := &Installer{Mirror: mirrorCopy, CacheDir: t.TempDir(), Platform: testPlatform}
			lock := &Lock{Providers: map[Source]*Locked{src: {Version: "1.1.0", Hashes: tc.hashes}}}
			got, err := run.Install(ctx, req, lock, false)
			if tc.ok {
				if err != nil || len(got) != 1 || got[0].Version != "1.1.0" {
					t.Fatalf("Install: %+v %v", got, err)
				}
				if !lock.Providers[src].Matches(h1) {
					t.Errorf("the lock does not record the package's h1: %+v", lock.Providers[src])
				}
				return
			}
			var ce *ChecksumError
			if !errors.As(err, &ce) || ce.Where != filepath.Join(mirrorCopy, src.Host, src.Namespace, src.Type, name("1.1.0")) {
				t.Fatalf("Install: %v, want a ChecksumError naming the archive", err)
			}
			if left := filesUnder(t, run.CacheDir); len(left) != 0 {
				t.Errorf("the refused package left %v in the cache", left)
			}
		})
	}

	// A later run with the lock uses the package cached by the first
	// (checked against the lock) without unpacking the archive again
	// (here no longer one).
	original, _ := os.ReadFile(archive)
	os.WriteFile(archive, []byte("truncated"), 0o644)
	again := &Installer{Mirror: mirrorDir, CacheDir: first.CacheDir, Platform: testPlatform}
	if got2, err := again.Install(ctx, req, lock, false); err != nil || got2[0].Executable != got[0].Executable {
		t.Fatalf("a run with the lock and the cache: %+v %v, want %s", got2, err, got[0].Executable)
	}
	os.WriteFile(archive, original, 0o644)

	// Packed and unpacked packages of one version: the unpacked one, as
	// it is, without a copy.
	exe := mirrorPackage(t, mirrorDir, src, "1.1.0", "#!/bin/sh\n# unpacked\n")
	if got, err := in().Install(ctx, req, &Lock{}, false); err != nil || got[0].Executable != exe {
		t.Errorf("with both layouts: %+v %v, want the unpacked %s", got, err, exe)
	}

	// The file name is read in any case, as OpenTofu reads it.
	upper := Source{DefaultHost, "kyku", "upper"}
	packArchive(t, mirrorDir, upper, "Terraform-Provider-Upper_3.0.0_"+strings.ToUpper(testPlatform.String())+".ZIP", fakePackage("upper", "3.0.0"))
	if got, err := in().Install(ctx, []Requirement{{Source: upper}}, &Lock{}, false); err != nil || got[0].Version != "3.0.0" {
		t.Errorf("an archive named in capitals: %+v %v", got, err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// filesUnder lists the files (not directories) under dir.
func filesUnder(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, path)
		}
		return nil
	})
	return out
}

// TestMirrorHashiCorpHostAlias: a mirror's packages under HashiCorp's
// registry host are found for a source on the default host (Terraform's
// mirrors keep hashicorp/random there), after the default host's own;
// never for a source on another host.
func TestMirrorHashiCorpHostAlias(t *testing.T) {
	random := Source{DefaultHost, "hashicorp", "random"}
	tfRandom := Source{HashiCorpHost, "hashicorp", "random"}
	for _, tc := range []struct {
		name     string
		source   Source
		unpacked map[Source][]string // source → versions in the mirror
		packed   map[Source][]string
		want     string // the version installed, "" for none
		wantHost string // the host directory it comes from
	}{
		{name: "under HashiCorp's host only", source: random, unpacked: map[Source][]string{tfRandom: {"3.6.0"}}, want: "3.6.0", wantHost: HashiCorpHost},
		{name: "packed under HashiCorp's host", source: random, packed: map[Source][]string{tfRandom: {"3.6.0"}}, want: "3.6.0", wantHost: HashiCorpHost},
		{name: "the default host's package first", source: random, unpacked: map[Source][]string{tfRandom: {"3.6.0"}, random: {"3.6.0"}}, want: "3.6.0", wantHost: DefaultHost},
		{name: "versions of both hosts", source: random, unpacked: map[Source][]string{random: {"3.5.0"}, tfRandom: {"3.6.0"}}, want: "3.6.0", wantHost: HashiCorpHost},
		{name: "another namespace", source: Source{DefaultHost, "integrations", "github"}, unpacked: map[Source][]string{{HashiCorpHost, "integrations", "github"}: {"6.0.0"}}, want: "6.0.0", wantHost: HashiCorpHost},
		{name: "HashiCorp's host named by the source", source: tfRandom, unpacked: map[Source][]string{tfRandom: {"3.6.0"}}, want: "3.6.0", wantHost: HashiCorpHost},
		{name: "not for another host", source: Source{"example.com", "hashicorp", "random"}, unpacked: map[Source][]string{tfRandom: {"3.6.0"}}},
		{name: "the default host is no alias of HashiCorp's", source: tfRandom, unpacked: map[Source][]string{random: {"3.6.0"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for s, vs := range tc.unpacked {
				for _, v := range vs {
					mirrorPackage(t, dir, s, v, "#!/bin/sh\n# "+s.Host+" "+v+"\n")
				}
			}
			for s, vs := range tc.packed {
				for _, v := range vs {
					packArchive(t, dir, s, archiveFileName(s, v, testPlatform), fakePackage(s.Type, v))
				}
			}
			in := &Installer{Mirror: dir, CacheDir: t.TempDir(), Platform: testPlatform}
			got, err := in.Install(t.Context(), []Requirement{{Source: tc.source}}, &Lock{}, false)
			if tc.want == "" {
				if err == nil || !strings.Contains(err.Error(), "(it has none)") {
					t.Fatalf("Install: %+v %v, want none found", got, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got[0].Version != tc.want || got[0].Source != tc.source {
				t.Errorf("installed %+v, want %s %s", got[0], tc.source, tc.want)
			}
			if tc.packed == nil {
				if b, _ := os.ReadFile(got[0].Executable); !strings.Contains(string(b), tc.wantHost+" ") {
					t.Errorf("installed the package %q, want the one under %s", b, tc.wantHost)
				}
			}
		})
	}
}
