package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// errPowerCut stands for the process dying between two renames.
var errPowerCut = errors.New("power cut")

// TestOldLayoutMoveCutShortLosesNothing (issue 42): the move is cut short
// after each of its renames in turn (the process killed, the machine
// off). Every file is then in .kyku, its staging directory or
// .kyku-state, whole, and the next run finishes the move: .kyku-state
// holds exactly what .kyku held, .kyku only the settings. The same when
// .kyku-state already exists (with only its .gitignore), where entries
// move one by one.
func TestOldLayoutMoveCutShortLosesNothing(t *testing.T) {
	files := map[string]string{
		"state.prod.json": `{"serial":3}`, "state.prod.journal": "{}\n", "backups/b1.json": "b1",
		"plans/prod/pr-7.json": "plan", "sim/Vm/1.json": "vm",
	}
	settings := map[string]string{"config.yaml": "execution: actions\n", "policies/ssh.rego": "package kyku\n"}
	for _, existing := range []bool{false, true} {
		for cut := 0; ; cut++ {
			name := "new place absent"
			if existing {
				name = "new place exists"
			}
			base := t.TempDir()
			write := func(dir string, m map[string]string) {
				for k, v := range m {
					p := filepath.Join(dir, filepath.FromSlash(k))
					if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(p, []byte(v), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			old, newDir := filepath.Join(base, SettingsDirName), filepath.Join(base, StateDirName)
			write(old, files)
			write(old, settings)
			if existing {
				write(newDir, map[string]string{".gitignore": "*\n"})
			}
			renames := 0
			m := &mover{base: base, owners: ownsState | ownsSimCloud | ownsProviders, rename: func(from, to string) error {
				if renames == cut {
					return errPowerCut
				}
				renames++
				return os.Rename(from, to)
			}}
			_, err := m.move(t.Context(), Settings{})
			if err == nil {
				// cut is past the last rename: the move was whole.
				if cut == 0 {
					t.Fatalf("%s: the move made no rename", name)
				}
				break
			}
			if !errors.Is(err, errPowerCut) {
				t.Fatalf("%s, cut after %d renames: %v", name, cut, err)
			}
			// Nothing lost: every file is somewhere, whole.
			all := map[string]string{}
			for _, dir := range []string{old, filepath.Join(old, stagingName), newDir} {
				for k, v := range treeOf(t, dir) {
					if k == ".gitignore" || k == ".kyku.lock" || strings.HasPrefix(k, stagingName+"/") {
						continue
					}
					all[k] = v
				}
			}
			want := map[string]string{}
			for k, v := range files {
				want[k] = v
			}
			for k, v := range settings {
				want[k] = v
			}
			if d := cmp.Diff(want, all); d != "" {
				t.Fatalf("%s, cut after %d renames: files lost or changed (-want +got):\n%s", name, cut, d)
			}
			// The next run finishes it.
			next := &mover{base: base, owners: ownsState | ownsSimCloud | ownsProviders, rename: os.Rename}
			if _, err := next.move(t.Context(), Settings{}); err != nil {
				t.Fatalf("%s, cut after %d renames: the next run: %v", name, cut, err)
			}
			gotNew := treeOf(t, newDir)
			if !strings.HasSuffix(gotNew[".gitignore"], "*\n") {
				t.Errorf("%s, cut after %d renames: .kyku-state/.gitignore = %q", name, cut, gotNew[".gitignore"])
			}
			delete(gotNew, ".gitignore")
			if d := cmp.Diff(files, gotNew); d != "" {
				t.Errorf("%s, cut after %d renames: .kyku-state (-want +got):\n%s", name, cut, d)
			}
			if d := cmp.Diff(settings, treeOf(t, old)); d != "" {
				t.Errorf("%s, cut after %d renames: .kyku (-want +got):\n%s", name, cut, d)
			}
		}
	}
}

// treeOf is every file under dir (slash-separated relative path →
// content); empty when dir does not exist.
func treeOf(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
