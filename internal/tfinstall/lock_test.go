package tfinstall

import (
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
