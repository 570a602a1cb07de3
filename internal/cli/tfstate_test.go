package cli_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/tfplugin/tfplugintest"
	"github.com/kyku/action/internal/tfstate"
)

// A Terraform root's state where OpenTofu left it: testdata/tfroots holds
// roots whose states a real tofu applied (record.sh), with the test
// cloud they describe.

// tofuRoot copies the recorded root name into a directory of its own, its
// test providers installed by kyku init, and returns the kyku and the
// root's directory. Commands run with -c ROOT and no --state-dir.
func tofuRoot(t *testing.T, name string) (*kyku, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the test providers")
	}
	k := newKyku(t, "")
	k.env["KYKU_PLUGIN_MIRROR"] = tfplugintest.Mirror(t, t.TempDir(), tfplugintest.Framework, tfplugintest.SDK)
	root := filepath.Join(k.dir, name)
	copyTree(t, filepath.Join("testdata", "tfroots", name), root)
	if code, out, errOut := k.run("", "init", "-c", root); code != 0 {
		t.Fatalf("init: exit %d\n%s%s", code, out, errOut)
	}
	return k, root
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// snapshot is every file under dir but the ones kyku init wrote, by path.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		// The provider cache (links into it included) and the lock are init's.
		if rel == ".kyku.lock.hcl" || rel == ".terraform.lock.hcl" || strings.HasPrefix(rel, ".kyku-state"+string(filepath.Separator)+"providers") {
			return nil
		}
		data, err := os.ReadFile(p)
		out[rel] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// statePath is where OpenTofu's local backend keeps workspace's state.
func statePath(root, workspace string) string {
	if workspace == "" {
		return filepath.Join(root, "terraform.tfstate")
	}
	return filepath.Join(root, "terraform.tfstate.d", workspace, "terraform.tfstate")
}

// TestPlanOnTofuStateNoChanges: kyku plan on a root whose state OpenTofu
// just applied, unchanged, says "No changes" for each workspace (-e),
// and changes nothing: the state, the test cloud and the directory are
// as they were (no write, no backup, no lock left behind).
func TestPlanOnTofuStateNoChanges(t *testing.T) {
	k, root := tofuRoot(t, "estate")
	for _, ws := range []string{"", "staging"} {
		t.Run("workspace "+ws, func(t *testing.T) {
			before := snapshot(t, root)
			args := []string{"plan", "--detailed-exitcode", "-c", root}
			if ws != "" {
				args = append(args, "-e", ws)
			}
			code, out, errOut := k.run("", args...)
			if code != 0 || !strings.Contains(out, "No changes.") {
				t.Fatalf("plan: exit %d, want 0 and No changes\n%s%s", code, out, errOut)
			}
			if !strings.Contains(out, "4 no-op") {
				t.Errorf("the plan does not count the state's 4 instances unchanged:\n%s", out)
			}
			if d := cmp.Diff(before, snapshot(t, root)); d != "" {
				t.Errorf("plan changed files (-before +after):\n%s", d)
			}
		})
	}
}

// TestPlanOnTofuStateSeesChanges: the same root with a changed value plans
// the update of exactly the instance it changes, from the state OpenTofu
// wrote; the state that is not there (another workspace) plans every
// resource as new.
func TestPlanOnTofuStateSeesChanges(t *testing.T) {
	k, root := tofuRoot(t, "estate")
	code, out, errOut := k.run("", "plan", "--detailed-exitcode", "-c", root, "--var", "value=v2")
	if code != 2 || !strings.Contains(out, `update fwtest_item fwtest_item.web["a"]`) || !strings.Contains(out, "0 to create, 1 to update, 0 to replace, 0 to destroy") {
		t.Errorf("plan --var value=v2: exit %d, want 2 and one update\n%s%s", code, out, errOut)
	}
	code, out, errOut = k.run("", "plan", "-c", root, "-e", "prod")
	if code != 0 || !strings.Contains(out, "4 to create") {
		t.Errorf("plan -e prod (no state): exit %d\n%s%s", code, out, errOut)
	}
}

// TestBackendConfig: the backend block with -backend-config as tofu init
// takes it: a file of arguments and KEY=VALUE pairs, a later one
// winning; refused where it configures nothing.
func TestBackendConfig(t *testing.T) {
	k, root := tofuRoot(t, "estate")
	if err := os.WriteFile(filepath.Join(root, "backend.tf"), []byte("terraform {\n  backend \"local\" {\n    path = \"nowhere.tfstate\"\n  }\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "states"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(statePath(root, ""), filepath.Join(root, "states", "prod.tfstate")); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(k.dir, "prod.tfbackend")
	if err := os.WriteFile(file, []byte("path = \"states/prod.tfstate\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name   string
		args   []string
		noop   bool
		errOut string
	}{
		{"the block's path", nil, false, ""},
		{"a pair", []string{"--backend-config", "path=states/prod.tfstate"}, true, ""},
		{"a file", []string{"-backend-config=" + file}, true, ""},
		{"a later pair wins", []string{"--backend-config", file, "--backend-config", "path=nowhere.tfstate"}, false, ""},
		{"an argument the backend has not", []string{"--backend-config", "bucket=b"}, false,
			`backend.tf:2:3: backend "local": bucket: not an argument kyku reads for this backend (it reads path, workspace_dir)`},
		{"a file that is not there", []string{"--backend-config", filepath.Join(k.dir, "missing.tfbackend")}, false, "missing.tfbackend"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := k.run("", append([]string{"plan", "-c", root}, tt.args...)...)
			switch {
			case tt.errOut != "":
				if code != 1 || !strings.Contains(errOut, tt.errOut) {
					t.Errorf("exit %d, want 1 and %q\n%s%s", code, tt.errOut, out, errOut)
				}
			case tt.noop && (code != 0 || !strings.Contains(out, "No changes.")):
				t.Errorf("exit %d, want No changes\n%s%s", code, out, errOut)
			case !tt.noop && (code != 0 || !strings.Contains(out, "4 to create")):
				t.Errorf("exit %d, want the state not found there (4 to create)\n%s%s", code, out, errOut)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(root, "nowhere.tfstate")); err == nil {
		t.Error("a plan wrote the state it did not find")
	}

	// Without a backend block, and for a Kyku configuration: refused.
	k2, root2 := tofuRoot(t, "estate")
	code, _, errOut := k2.run("", "plan", "-c", root2, "--backend-config", "path=x.tfstate")
	if code != 1 || !strings.Contains(errOut, "the configuration has no backend block") {
		t.Errorf("no backend block: exit %d\n%s", code, errOut)
	}
	k3 := newKyku(t, cfg)
	code, _, errOut = k3.run("", "plan", "--backend-config", "path=x.tfstate", "-c", filepath.Join(k3.dir, "kyku.yaml"))
	if code != 1 || !strings.Contains(errOut, "is a Kyku configuration") {
		t.Errorf("a Kyku configuration: exit %d\n%s", code, errOut)
	}
}

// TestApplyOnTofuStateWayBack: after a Kyku apply on OpenTofu's state,
// the state is still OpenTofu's: same lineage, serial raised, the changed
// instance written, every other instance and output the very bytes
// OpenTofu wrote; and planning again says no changes.
func TestApplyOnTofuStateWayBack(t *testing.T) {
	k, root := tofuRoot(t, "estate")
	before := readTFState(t, statePath(root, ""))
	code, out, errOut := k.run("", "apply", "--auto-approve", "-c", root, "--var", "value=v2")
	if code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	after := readTFState(t, statePath(root, ""))
	if after.Lineage != before.Lineage || after.Serial <= before.Serial {
		t.Errorf("lineage %s serial %d, was %s %d", after.Lineage, after.Serial, before.Lineage, before.Serial)
	}
	changed := map[string]bool{}
	was := instances(t, before)
	for addr, inst := range instances(t, after) {
		if !bytes.Equal(inst, was[addr]) {
			changed[addr] = true
		}
	}
	if d := cmp.Diff(map[string]bool{`fwtest_item.web["a"]`: true}, changed); d != "" {
		t.Errorf("instances changed (-want +got):\n%s", d)
	}
	if d := cmp.Diff(before.Outputs, after.Outputs); d != "" {
		t.Errorf("outputs changed:\n%s", d)
	}
	code, out, errOut = k.run("", "plan", "--detailed-exitcode", "-c", root, "--var", "value=v2")
	if code != 0 {
		t.Errorf("plan after apply: exit %d\n%s%s", code, out, errOut)
	}
}

func readTFState(t *testing.T, path string) *tfstate.File {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := tfstate.Decode(path, data)
	if err != nil {
		t.Fatalf("the state does not read as OpenTofu's: %v", err)
	}
	return f
}

// instances are f's instances, each encoded alone, by address.
func instances(t *testing.T, f *tfstate.File) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, r := range f.Resources {
		for _, in := range r.Instances {
			one := &tfstate.File{Lineage: f.Lineage, TerraformVersion: f.TerraformVersion,
				Resources: []*tfstate.Resource{{Module: r.Module, Mode: r.Mode, Type: r.Type, Name: r.Name, Provider: r.Provider, Instances: []*tfstate.Instance{in}}}}
			data, err := tfstate.Encode(one, tfstate.Compact)
			if err != nil {
				t.Fatal(err)
			}
			out[r.InstanceAddr(in.Key)] = data
		}
	}
	return out
}
