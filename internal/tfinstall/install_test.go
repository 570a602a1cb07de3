package tfinstall

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	version "github.com/hashicorp/go-version"
)

func mustConstraints(t *testing.T, s string) Constraints {
	t.Helper()
	c, err := ParseConstraints(s)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// mirrorPackage writes a package of src into a mirror directory.
func mirrorPackage(t *testing.T, dir string, src Source, version, content string) string {
	t.Helper()
	pkg := filepath.Join(dir, src.Host, src.Namespace, src.Type, version, testPlatform.String())
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(pkg, "terraform-provider-"+src.Type+"_v"+version)
	if err := os.WriteFile(exe, []byte(content), 0o755); err != nil {
		t.Fatal(err)
	}
	return exe
}

func TestParseSource(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{in: "hashicorp/null", want: "registry.opentofu.org/hashicorp/null"},
		{in: "HashiCorp/AWS", want: "registry.opentofu.org/hashicorp/aws"},
		{in: "example.com:8443/acme/thing", want: "example.com:8443/acme/thing"},
		{in: "null", err: "want NAMESPACE/TYPE"},
		{in: "a/b/c/d", err: "want NAMESPACE/TYPE"},
		{in: "../etc/passwd", err: "invalid host"},
		{in: "x/../y", err: "invalid namespace"},
		{in: "ex ample.com/a/b", err: "invalid host"},
		{in: "hashicorp/terraform-provider-null", err: "invalid type"},
	} {
		got, err := ParseSource(tc.in)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("ParseSource(%q) = %v, %v; want error %q", tc.in, got, err, tc.err)
		case tc.err == "" && (err != nil || got.String() != tc.want):
			t.Errorf("ParseSource(%q) = %v, %v; want %s", tc.in, got, err, tc.want)
		}
	}
}

func TestConstraints(t *testing.T) {
	vs := parseVersions([]string{"3.2.4", "3.3.0", "3.3.1", "4.0.0-beta1", "4.0.0", "not-a-version"})
	for _, tc := range []struct{ c, want string }{
		{"3.3.1", "3.3.1"}, {"~> 3.2", "3.3.1"}, {"~> 3.2.0", "3.2.4"}, {">= 3.0, < 4.0", "3.3.1"},
		{"", "4.0.0"}, {"!= 4.0.0, >= 4.0.0-a", "4.0.0-beta1"}, {"> 5", ""},
	} {
		got := mustConstraints(t, tc.c).newest(vs)
		if (got == nil && tc.want != "") || (got != nil && got.Original() != tc.want) {
			t.Errorf("newest(%q) = %v, want %q", tc.c, got, tc.want)
		}
	}
	if _, err := ParseConstraints("~>> 1"); err == nil {
		t.Error("a malformed constraint parsed")
	}
}

func TestMirrorInstallAndLock(t *testing.T) {
	mirrorDir := t.TempDir()
	src := Source{DefaultHost, "hashicorp", "null"}
	mirrorPackage(t, mirrorDir, src, "3.3.0", "#!/bin/sh\n# 3.3.0\n")
	exe := mirrorPackage(t, mirrorDir, src, "3.3.1", "#!/bin/sh\n# 3.3.1\n")
	in := &Installer{Mirror: mirrorDir, Platform: testPlatform}
	ctx := t.Context()
	lock := &Lock{Providers: map[Source]*Locked{
		{DefaultHost, "hashicorp", "gone"}: {Version: "1.0.0"}, // no longer required: dropped
	}}

	got, err := in.Install(ctx, []Requirement{{src, mustConstraints(t, "~> 3.3")}}, lock, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Version != "3.3.1" || got[0].Executable != exe {
		t.Fatalf("installed %+v", got)
	}
	h1, _ := HashDir(filepath.Dir(exe))
	want := map[Source]*Locked{src: {Version: "3.3.1", Constraints: "~> 3.3", Hashes: []Hash{h1}}}
	if d := cmp.Diff(want, lock.Providers); d != "" {
		t.Errorf("lock (-want +got):\n%s", d)
	}

	// A newer version in the mirror is not taken while the lock holds.
	mirrorPackage(t, mirrorDir, src, "3.4.0", "#!/bin/sh\n# 3.4.0\n")
	got, err = in.Install(ctx, []Requirement{{src, mustConstraints(t, "~> 3.3")}}, lock, false)
	if err != nil || got[0].Version != "3.3.1" {
		t.Fatalf("with the lock: %+v %v", got, err)
	}

	// A changed binary is refused, and nothing is handed out.
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n# evil\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err = in.Install(ctx, []Requirement{{src, mustConstraints(t, "~> 3.3")}}, lock, false)
	var ce *ChecksumError
	if !errors.As(err, &ce) || ce.Version != "3.3.1" || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("a changed binary: %v, want a ChecksumError", err)
	}

	// A constraint the locked version breaks asks for an upgrade.
	_, err = in.Install(ctx, []Requirement{{src, mustConstraints(t, ">= 3.4")}}, lock, false)
	if !errors.Is(err, ErrLockedVersion) || !strings.Contains(err.Error(), "kyku init --upgrade") {
		t.Errorf("a locked version outside the constraint: %v", err)
	}

	// An upgrade takes the newest allowed and replaces the entry.
	got, err = in.Install(ctx, []Requirement{{src, mustConstraints(t, ">= 3.4")}}, lock, true)
	if err != nil || got[0].Version != "3.4.0" {
		t.Fatalf("upgrade: %+v %v", got, err)
	}
	if l := lock.Providers[src]; l.Version != "3.4.0" || len(l.Hashes) != 1 || l.Matches(h1) {
		t.Errorf("upgraded entry: %+v", l)
	}

	// Nothing allowed in the mirror: the versions it has are named.
	_, err = in.Install(ctx, []Requirement{{src, mustConstraints(t, "> 9")}}, &Lock{}, false)
	if err == nil || !strings.Contains(err.Error(), "3.3.0, 3.3.1, 3.4.0") && !strings.Contains(err.Error(), "3.4.0") {
		t.Errorf("no allowed version: %v", err)
	}
}

func TestMirrorPackageWithoutExecutable(t *testing.T) {
	dir := t.TempDir()
	src := Source{DefaultHost, "hashicorp", "null"}
	exe := mirrorPackage(t, dir, src, "1.0.0", "x")
	os.Chmod(exe, 0o644)
	_, err := (&Installer{Mirror: dir, Platform: testPlatform}).Install(t.Context(), []Requirement{{Source: src}}, &Lock{}, false)
	if err == nil || !strings.Contains(err.Error(), "no executable terraform-provider-null") {
		t.Errorf("a package without an executable: %v", err)
	}
}

func TestHashDirIsTerraformsH1(t *testing.T) {
	// The h1 scheme (go.sum's) of a directory holding "a" = "hello\n"
	// and "b/c" = "" — computed independently: sha256 of the two lines
	// "<sha256 of content>  <path>\n", base64; by hand:
	//   printf '5891…be03  a\ne3b0…b855  b/c\n' | sha256sum | xxd -r -p | base64
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a"), []byte("hello\n"), 0o644)
	os.MkdirAll(filepath.Join(dir, "b"), 0o755)
	os.WriteFile(filepath.Join(dir, "b", "c"), nil, 0o644)
	got, err := HashDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	const want = "h1:EVjZbL9RffXLhkk4kZZFpScoyl7PeVWG6VUTiYt3bqE="
	if got != want {
		t.Errorf("HashDir = %s, want %s", got, want)
	}
	if !slices.Contains([]string{"h1"}, got.Kind()) {
		t.Errorf("kind %q", got.Kind())
	}
}

// noNetwork is an HTTP transport that fails the test on any request.
type noNetwork struct{ t *testing.T }

func (n noNetwork) RoundTrip(r *http.Request) (*http.Response, error) {
	n.t.Errorf("a request to %s; want none (the package is linked into the cache)", r.URL)
	return nil, errors.New("no network in this test")
}

func TestInitLinksMirrorPackagesForLaterRuns(t *testing.T) {
	mirrorDir, cache := t.TempDir(), t.TempDir()
	src := Source{DefaultHost, "hashicorp", "null"}
	exe := mirrorPackage(t, mirrorDir, src, "3.3.1", "#!/bin/sh\n# 3.3.1\n")
	ctx := t.Context()
	reqs := []Requirement{{src, mustConstraints(t, "~> 3.3")}}
	h1, err := HashDir(filepath.Dir(exe))
	if err != nil {
		t.Fatal(err)
	}
	linked, _ := providerCache{dir: cache}.entry(src, version.Must(version.NewVersion("3.3.1")), testPlatform, h1)

	// Without LinkMirror (plan, apply) nothing is written into the cache.
	lock := &Lock{}
	if _, err := (&Installer{Mirror: mirrorDir, CacheDir: cache, Platform: testPlatform}).Install(ctx, reqs, lock, false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(linked); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a run without LinkMirror wrote %s (%v)", linked, err)
	}

	// kyku init links the package under its hash; a later run without the
	// mirror uses the link, checked against the lock, and asks no registry.
	if _, err := (&Installer{Mirror: mirrorDir, CacheDir: cache, Platform: testPlatform, LinkMirror: true}).Install(ctx, reqs, lock, false); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(linked); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("%s after init: %v, %v; want a symbolic link", linked, fi, err)
	}
	offline := &Installer{CacheDir: cache, Platform: testPlatform, Registry: &Registry{Client: &http.Client{Transport: noNetwork{t}}}}
	got, err := offline.Install(ctx, reqs, lock, false)
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := filepath.EvalSymlinks(exe); len(got) != 1 || got[0].Executable != want {
		t.Errorf("installed %+v, want the mirror's %s", got, want)
	}

	// A binary changed in the mirror since is not run: the link no longer
	// matches the lock, so the package would be fetched again (here the
	// registry cannot be reached, and the install fails).
	original, _ := os.ReadFile(exe)
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n# evil\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	offline.Registry = &Registry{Client: &http.Client{Transport: failing{}}}
	if got, err := offline.Install(ctx, reqs, lock, false); err == nil {
		t.Errorf("a changed binary behind the link was installed: %+v", got)
	}
	if _, err := os.Stat(exe); err != nil {
		t.Errorf("the mirror's package was removed with the stale link: %v", err)
	}

	// Linking again over an entry whose content no longer matches its
	// name (a package changed behind Kyku's back) replaces it.
	if err := os.WriteFile(exe, original, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(linked, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(linked, "terraform-provider-null_v3.3.1"), []byte("#!/bin/sh\n# changed\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := (&Installer{Mirror: mirrorDir, CacheDir: cache, Platform: testPlatform, LinkMirror: true}).Install(ctx, reqs, &Lock{}, false); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(linked); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("%s after init over a changed package: %v, %v; want a symbolic link", linked, fi, err)
	}
}

// failing is an HTTP transport whose every request fails.
type failing struct{}

func (failing) RoundTrip(*http.Request) (*http.Response, error) {
	return nil, errors.New("no network in this test")
}
