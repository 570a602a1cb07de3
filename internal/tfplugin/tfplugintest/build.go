// Package tfplugintest builds Kyku's test providers from source, for the
// tests of the plugin client and the installer: fwtest, written with
// terraform-plugin-framework (protocol 6), and sdktest, written with
// terraform-plugin-sdk/v2 (protocol 5), both in ../testdata/providers, a
// module of its own so that HashiCorp's provider libraries never enter
// Kyku's dependency graph. Each is built once per source version: the
// build goes to a directory of the system's temporary directory named by
// a digest of the sources and the Go version, so later test processes
// (and the other packages' tests) reuse it. Safe for concurrent use,
// also by several processes: they take turns by a file lock, so that the
// test processes go test runs side by side on a cold machine compile the
// providers' libraries once, not once each (a build lands by rename).
package tfplugintest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/kyku/action/internal/buildtest"
)

// Provider is one of the test providers.
type Provider struct {
	Type     string // "fwtest": its resources are fwtest_item, …
	Protocol int
	Version  string
}

// The test providers.
var (
	Framework = Provider{Type: "fwtest", Protocol: 6, Version: "0.1.0"}
	SDK       = Provider{Type: "sdktest", Protocol: 5, Version: "0.1.0"}
)

// Source is the provider's address in the tests' mirrors and locks.
func (p Provider) Source() string { return "registry.opentofu.org/kyku/" + p.Type }

// Executable is the name of its binary in a package, as HashiCorp's
// release process names them.
func (p Provider) Executable() string { return "terraform-provider-" + p.Type + "_v" + p.Version }

var (
	mu    sync.Mutex
	built = map[string]string{}
)

// Build returns the path of the provider's executable, building it when
// no build of the current sources exists. It fails the test when Go or
// the provider libraries cannot be had.
func Build(t testing.TB, p Provider) string {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	if path, ok := built[p.Type]; ok {
		return path
	}
	src := sourceDir(t)
	digest, err := digestSources(src)
	if err != nil {
		t.Fatalf("digest test provider sources: %v", err)
	}
	dir := filepath.Join(os.TempDir(), "kyku-tfplugintest-"+digest)
	path := filepath.Join(dir, p.Executable())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("build test provider: %v", err)
	}
	unlock, err := lockBuilds(dir)
	if err != nil {
		t.Fatalf("build test provider %s: %v", p.Type, err)
	}
	defer unlock()
	if _, err := os.Stat(path); err != nil {
		tmp := fmt.Sprintf("%s.%d.tmp", path, os.Getpid())
		cmd := buildtest.Command("-buildvcs=false", "-o", tmp, "./"+p.Type)
		cmd.Dir = src
		cmd.Env = append(cmd.Env, "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("build test provider %s: %v\n%s", p.Type, err, out)
		}
		if err := os.Rename(tmp, path); err != nil {
			t.Fatalf("build test provider %s: %v", p.Type, err)
		}
	}
	built[p.Type] = path
	return path
}

// Mirror lays out the providers in dir as an unpacked filesystem mirror
// (HOST/NAMESPACE/TYPE/VERSION/OS_ARCH/executable) and returns dir.
func Mirror(t testing.TB, dir string, ps ...Provider) string {
	t.Helper()
	for _, p := range ps {
		bin := Build(t, p)
		pkg := filepath.Join(dir, filepath.FromSlash(p.Source()), p.Version, runtime.GOOS+"_"+runtime.GOARCH)
		if err := os.MkdirAll(pkg, 0o755); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(bin)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(pkg, p.Executable()), data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// lockBuilds takes the lock of the builds in dir, waiting while another
// process holds it, and returns its release.
func lockBuilds(dir string) (unlock func(), err error) {
	f, err := os.OpenFile(filepath.Join(dir, "build.lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open the build lock: %w", err)
	}
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("take the build lock: %w", err)
	}
	return func() { f.Close() }, nil
}

// sourceDir is ../testdata/providers beside this file.
func sourceDir(t testing.TB) string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("tfplugintest: cannot locate its sources")
	}
	return filepath.Join(filepath.Dir(file), "..", "testdata", "providers")
}

// digestSources is a digest of every file of the providers' module and of
// the Go version building them.
func digestSources(dir string) (string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		return "", err
	}
	sort.Strings(files)
	h := sha256.New()
	fmt.Fprintln(h, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		rel, _ := filepath.Rel(dir, f)
		fmt.Fprintf(h, "%s %x\n", filepath.ToSlash(rel), sha256.Sum256(data))
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}
