package tfinstall

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestLockRoundTrip(t *testing.T) {
	path := filepath.Join("testdata", "lock", "good.hcl")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	l, ds := ParseLock(path, data)
	if err := ds.Err(); err != nil {
		t.Fatalf("ParseLock: %v", err)
	}
	null := l.Providers[Source{"registry.opentofu.org", "hashicorp", "null"}]
	if null == nil || null.Version != "3.3.1" || null.Constraints != "3.3.1" || len(null.Hashes) != 1 {
		t.Fatalf("null entry: %+v", null)
	}
	got := l.Encode()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Kyku writes the lock exactly as it reads it: a re-run changes nothing.
	if d := cmp.Diff(string(data), string(got)); d != "" {
		t.Errorf("Encode (-file +encoded):\n%s", d)
	}
}

// TestLockErrors: every error of the fixture is reported at once, each at
// the line whose "# ERROR:" comment expects it.
func TestLockErrors(t *testing.T) {
	path := filepath.Join("testdata", "lock", "bad.hcl")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	re := regexp.MustCompile(`# ERROR: (.*)$`)
	for i, line := range strings.Split(string(data), "\n") {
		if m := re.FindStringSubmatch(line); m != nil {
			want[fmt.Sprintf("%s:%d: %s", path, i+1, m[1])] = true
		}
	}
	l, ds := ParseLock(path, data)
	got := map[string]bool{}
	for _, d := range ds {
		if d.Pos.Col == 0 {
			t.Errorf("diagnostic without a column: %v", d)
		}
		got[fmt.Sprintf("%s:%d: %s", d.Pos.File, d.Pos.Line, d.Message)] = true
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("diagnostics (-want +got):\n%s", d)
	}
	if l.Providers[Source{"registry.opentofu.org", "kyku", "c"}] == nil {
		t.Error("the good entry is kept beside the bad ones")
	}
}

func TestLockWriteIsAtomicAndStable(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, LockFileName)
	l, err := ReadLock(path)
	if err != nil || len(l.Providers) != 0 {
		t.Fatalf("a missing lock file: %v %v", l, err)
	}
	l.Providers[Source{"registry.opentofu.org", "hashicorp", "null"}] = &Locked{Version: "3.3.1", Hashes: []Hash{"h1:EVjZbL9RffXLhkk4kZZFpScoyl7PeVWG6VUTiYt3bqE="}}
	if err := WriteLock(path, l); err != nil {
		t.Fatal(err)
	}
	back, err := ReadLock(path)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(l, back); d != "" {
		t.Errorf("read back (-wrote +read):\n%s", d)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("files left beside the lock: %v", entries)
	}
}

// TestLockFromHashiCorpHost: a lock Terraform wrote (HashiCorp's host)
// gives kyku init the same version of hashicorp's providers on the
// default host, with hashes of their own, as OpenTofu's init does; other
// namespaces and providers already locked on the default host keep what
// they have. A lock file's entry without hashes is still refused.
func TestLockFromHashiCorpHost(t *testing.T) {
	tf := func(typ string) Source { return Source{HashiCorpHost, "hashicorp", typ} }
	tofu := func(typ string) Source { return Source{DefaultHost, "hashicorp", typ} }
	acme := Source{HashiCorpHost, "acme", "thing"}
	old := Hash("h1:" + strings.Repeat("A", 43) + "=")
	lock := &Lock{Providers: map[Source]*Locked{
		tf("random"):  {Version: "3.5.1", Constraints: "~> 3.5", Hashes: []Hash{old}},
		tf("null"):    {Version: "3.1.0", Hashes: []Hash{old}},
		tofu("null"):  {Version: "3.2.0", Hashes: []Hash{old}},
		acme:          {Version: "1.0.0", Hashes: []Hash{old}},
		tf("archive"): {Version: "2.0.0", Hashes: []Hash{old}},
	}}
	moved := lock.FromHashiCorpHost()
	if d := cmp.Diff(map[Source]Source{tf("random"): tofu("random"), tf("archive"): tofu("archive")}, moved); d != "" {
		t.Errorf("carried over (-want +got):\n%s", d)
	}
	if _, ok := lock.Providers[Source{DefaultHost, "acme", "thing"}]; ok {
		t.Error("another namespace was carried over")
	}
	if l := lock.Providers[tofu("null")]; l.Version != "3.2.0" {
		t.Errorf("the default host's own entry was replaced: %+v", l)
	}

	// Installing keeps the carried version (not the newest), records the
	// package's own hashes, and drops the entries no longer required.
	dir := t.TempDir()
	exe := mirrorPackage(t, dir, tofu("random"), "3.5.1", "#!/bin/sh\n# 3.5.1\n")
	mirrorPackage(t, dir, tofu("random"), "3.6.0", "#!/bin/sh\n# 3.6.0\n")
	in := &Installer{Mirror: dir, Platform: testPlatform}
	got, err := in.Install(t.Context(), []Requirement{{tofu("random"), mustConstraints(t, "~> 3.5")}}, lock, false)
	if err != nil || got[0].Version != "3.5.1" {
		t.Fatalf("Install: %+v %v, want the carried-over 3.5.1", got, err)
	}
	h1, _ := HashDir(filepath.Dir(exe))
	want := map[Source]*Locked{tofu("random"): {Version: "3.5.1", Constraints: "~> 3.5", Hashes: []Hash{h1}}}
	if d := cmp.Diff(want, lock.Providers); d != "" {
		t.Errorf("lock (-want +got):\n%s", d)
	}

	// Read from a file, an entry without hashes checks them all the same:
	// no package matches it.
	path := filepath.Join(t.TempDir(), LockFileName)
	os.WriteFile(path, []byte("provider \"registry.opentofu.org/hashicorp/random\" {\n  version = \"3.5.1\"\n}\n"), 0o644)
	fromFile, err := ReadLock(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = in.Install(t.Context(), []Requirement{{tofu("random"), mustConstraints(t, "~> 3.5")}}, fromFile, false)
	var ce *ChecksumError
	if !errors.As(err, &ce) {
		t.Errorf("a lock file's entry without hashes: %v, want a ChecksumError", err)
	}
}
