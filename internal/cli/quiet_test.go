package cli_test

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// tree is every file and directory under dir, each file with its
// content's digest and modification time.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		if d.IsDir() {
			out[rel] = "dir" // its mtime moves with the lock file
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out[rel] = fmt.Sprintf("%x %s", sha256.Sum256(data), info.ModTime())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestReadOnlyCommandsWriteNothing: validate, plan, graph, output and
// refresh --report-only write nothing, before the first apply (no empty
// .kyku-state/ beside the configuration) and after it (no file touched), with
// state and the sim's cloud in their default places next to the
// configuration.
func TestReadOnlyCommandsWriteNothing(t *testing.T) {
	k := newKyku(t, cfg)
	delete(k.env, "KYKU_SIM_DIR") // the default: .kyku-state/sim beside kyku.yaml
	c := filepath.Join(k.dir, "kyku.yaml")
	readOnly := [][]string{
		{"validate", "-c", c}, {"plan", "-c", c}, {"plan", "-c", c, "--json"}, {"graph", "-c", c},
		{"output", "-c", c}, {"refresh", "-c", c, "--report-only"}, {"state", "list", "-c", c},
	}
	before := tree(t, k.dir)
	for _, args := range readOnly {
		k.run("", args...)
		if diff := cmp.Diff(before, tree(t, k.dir)); diff != "" {
			t.Errorf("kyku %v before any apply wrote (-before +after):\n%s", args, diff)
		}
	}
	if code, out, errOut := k.run("", "apply", "-c", c, "--auto-approve"); code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	applied := tree(t, k.dir)
	if _, ok := applied[filepath.Join(".kyku-state", "state.json")]; !ok {
		t.Fatalf("apply wrote no state beside the configuration: %v", applied)
	}
	for _, args := range readOnly {
		if code, out, errOut := k.run("", args...); code != 0 {
			t.Errorf("kyku %v after apply: exit %d\n%s%s", args, code, out, errOut)
		}
		if diff := cmp.Diff(applied, tree(t, k.dir)); diff != "" {
			t.Errorf("kyku %v after apply wrote (-before +after):\n%s", args, diff)
		}
	}
}

// TestDestroyCancelled: answering anything but "yes" to destroy says
// "Destroy cancelled." (not "Apply cancelled."), exits 1 and destroys
// nothing.
func TestDestroyCancelled(t *testing.T) {
	k := newKyku(t, cfg)
	k.ok("apply", "--auto-approve")
	code, out, _ := k.run("no\n", "destroy")
	if code != 1 || !strings.Contains(out, "\nDestroy cancelled.\n") || strings.Contains(out, "Apply cancelled") {
		t.Errorf("destroy answered no: exit %d\n%s", code, out)
	}
	if n := len(k.state("").Resources); n != 3 {
		t.Errorf("%d resources in state after a cancelled destroy, want 3", n)
	}
}
