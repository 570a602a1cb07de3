package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/plan/plantest"
)

const sized = `provider: sim
resources:
  net:
    type: Vpc
    properties: { cidr: 10.0.0.0/16 }
  web:
    type: Vm
    properties: { network: "${net}", image: debian-12, size: small }
`

// files is every file under dir by path (the sim's cloud, the state).
func files(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		out[path] = string(data)
		return err
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return out
}

func (k *kyku) read(path string) []byte {
	k.t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		k.t.Fatal(err)
	}
	return data
}

// savePlan runs plan --out for the configuration text and returns the file.
func (k *kyku) savePlan(name, config string) string {
	k.t.Helper()
	k.write(config)
	out := filepath.Join(k.dir, name)
	if code, _, errOut := k.run("", "plan", "--out", out); code != 0 {
		k.t.Fatalf("plan --out %s: %s", name, errOut)
	}
	return out
}

func decodeFile(t *testing.T, path string) *plan.Plan {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan.Decode(path, data)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestApplyPlanRefusesWhatItDoesNotShow: `kyku apply --plan FILE` of a file
// edited after kyku wrote it is refused with one line naming the file, and
// nothing changes in the state or the cloud. Edits that keep the file
// valid (what anyone who can write it can do with kyku's own code) are
// caught by planning its configuration again.
func TestApplyPlanRefusesWhatItDoesNotShow(t *testing.T) {
	large := strings.Replace(sized, "size: small", "size: large", 1)
	for _, tt := range []struct {
		name string
		// make writes the file to apply, given the plans of sized (no
		// changes after the first apply) and of large (web small → large).
		make func(k *kyku, small, big string) []byte
		want string
	}{
		{"changes edited: shows small → large, config says small", func(k *kyku, small, big string) []byte {
			p, q := decodeFile(t, big), decodeFile(t, small)
			p.Config, p.ConfigHash, p.VariablesHash, p.SecretsHash = q.Config, q.ConfigHash, q.VariablesHash, q.SecretsHash
			data, _ := plan.Encode(p)
			return data
		}, `saved plan refused: planning its configuration again against the current state gives other changes than it lists (the file says update "web", planning again says no-op)`},
		{"configuration edited, hash kept", func(k *kyku, small, big string) []byte {
			p, q := decodeFile(t, small), decodeFile(t, big)
			p.Config = q.Config
			data, _ := plan.Encode(p)
			return data
		}, "its embedded configuration does not hash to its configHash"},
		{"configuration edited in place", func(k *kyku, small, big string) []byte {
			return bytes.Replace(k.read(small), []byte(`"size": "small"`), []byte(`"size": "large"`), 1)
		}, "does not match its digest"},
		{"no-op flipped to destroy, shown as 0 to destroy", func(k *kyku, small, big string) []byte {
			return plantest.Reseal(t, bytes.Replace(k.read(small), []byte(`"action": "no-op"`), []byte(`"action": "destroy"`), 1))
		}, "its counters (0 to create, 0 to change, 0 to replace, 0 to destroy) are not its changes' (0, 0, 0, 1)"},
		{"no-op flipped to destroy and counted", func(k *kyku, small, big string) []byte {
			p := decodeFile(t, small)
			p.Changes[0].Action = plan.Destroy
			p.Count()
			data, _ := plan.Encode(p)
			return data
		}, `the file says destroy "net", planning again says no-op`},
		{"truncated", func(k *kyku, small, big string) []byte {
			data := k.read(big)
			return data[:len(data)*2/3]
		}, "not a complete kyku plan file (truncated or damaged"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			k := newKyku(t, sized)
			if code, _, errOut := k.run("", "apply", "--auto-approve"); code != 0 {
				t.Fatal(errOut)
			}
			big := k.savePlan("large.tfplan", large)
			small := k.savePlan("small.tfplan", sized)
			file := filepath.Join(k.dir, "edited.tfplan")
			if err := os.WriteFile(file, tt.make(k, small, big), 0o600); err != nil {
				t.Fatal(err)
			}
			state, cloud := files(t, filepath.Join(k.dir, ".kyku")), files(t, filepath.Join(k.dir, "cloud"))
			code, out, errOut := k.run("", "apply", "--plan", file, "--auto-approve", "--state-dir", filepath.Join(k.dir, ".kyku"))
			if code != 1 || !strings.HasPrefix(errOut, "kyku: "+file+": ") || !strings.Contains(errOut, tt.want) || strings.Count(errOut, "\n") != 1 {
				t.Errorf("exit %d, stderr %q; want one line naming the file and saying %q", code, errOut, tt.want)
			}
			if strings.Contains(out, "Apply complete") || strings.Contains(out, "Do you want") {
				t.Errorf("the refused plan was shown or applied:\n%s", out)
			}
			if diff := cmp.Diff(state, files(t, filepath.Join(k.dir, ".kyku"))); diff != "" {
				t.Errorf("the refused plan changed the state:\n%s", diff)
			}
			if diff := cmp.Diff(cloud, files(t, filepath.Join(k.dir, "cloud"))); diff != "" {
				t.Errorf("the refused plan changed the cloud:\n%s", diff)
			}
		})
	}
}

// TestApplyPlanShowsWhatItApplies: an untouched saved plan says it was
// verified, shows its changes, and applies them without asking for "yes"
// again (saving it was the approval, as for terraform apply PLANFILE):
// nothing on stdin.
func TestApplyPlanShowsWhatItApplies(t *testing.T) {
	k := newKyku(t, sized)
	if code, _, errOut := k.run("", "apply", "--auto-approve"); code != 0 {
		t.Fatal(errOut)
	}
	file := k.savePlan("large.tfplan", strings.Replace(sized, "size: small", "size: large", 1))
	code, out, errOut := k.run("", "apply", "--plan", file, "--state-dir", filepath.Join(k.dir, ".kyku"))
	if code != 0 || strings.Contains(out, "Do you want") {
		t.Fatalf("apply --plan: exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{
		file + " verified: planned again against the current state, it makes the changes it lists.",
		"Plan: 0 to create, 1 to update, 0 to replace, 0 to destroy", "size: small → large", "Apply complete: 1 succeeded",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestEnvironmentNamesAreChecked: an environment name that could reach
// outside the state directory (or into another's keys) is refused by
// every command, naming the flag, before anything is written.
func TestEnvironmentNamesAreChecked(t *testing.T) {
	for _, tt := range []struct {
		args []string
		env  string // KYKU_ENV
		bad  string
	}{
		{args: []string{"plan", "-e", "../../x"}, bad: "../../x"},
		{args: []string{"plan", "--env=prod.eu"}, bad: "prod.eu"},
		{args: []string{"apply", "--auto-approve", "-e", "a/b"}, bad: "a/b"},
		{args: []string{"validate", "-e", ".."}, bad: ".."},
		{args: []string{"output", "-e", strings.Repeat("e", 65)}, bad: strings.Repeat("e", 65)},
		{args: []string{"state", "list", "-e", "../x"}, bad: "../x"},
		{args: []string{"plan"}, env: "../../x", bad: "../../x"},
	} {
		t.Run(strings.Join(tt.args, " ")+tt.env, func(t *testing.T) {
			k := newKyku(t, sized)
			if tt.env != "" {
				k.env["KYKU_ENV"] = tt.env
			}
			parent := files(t, filepath.Dir(k.dir))
			code, _, errOut := k.run("", tt.args...)
			if code != 1 || !strings.Contains(errOut, "kyku: -e (or KYKU_ENV): environment name ") || !strings.Contains(errOut, "is invalid") {
				t.Errorf("exit %d, stderr %q; want the name refused", code, errOut)
			}
			if diff := cmp.Diff(parent, files(t, filepath.Dir(k.dir))); diff != "" {
				t.Errorf("files written:\n%s", diff)
			}
		})
	}
}

// TestDestroyAllNeedsTheWord: an empty or truncated configuration plans
// to destroy everything in state: plan and apply refuse it (exit 1),
// changing nothing, unless asked for with --allow-destroy-all, also when
// applying the saved plan; kyku destroy needs no word.
func TestDestroyAllNeedsTheWord(t *testing.T) {
	for _, truncated := range []string{"resources: {}\n", "provider: sim\n", ""} {
		t.Run(strings.TrimSpace(truncated), func(t *testing.T) {
			k := newKyku(t, sized)
			if code, _, errOut := k.run("", "apply", "--auto-approve"); code != 0 {
				t.Fatal(errOut)
			}
			k.write(truncated)
			state, cloud := files(t, filepath.Join(k.dir, ".kyku")), files(t, filepath.Join(k.dir, "cloud"))
			for _, args := range [][]string{{"plan"}, {"plan", "--detailed-exitcode"}, {"apply", "--auto-approve"}} {
				code, out, errOut := k.run("", args...)
				if code != 1 || !strings.Contains(errOut, "refusing to destroy all 2 resources in state: the configuration ("+filepath.Join(k.dir, "kyku.yaml")+") has no resources") ||
					!strings.Contains(errOut, "run kyku destroy, or plan and apply with --allow-destroy-all") {
					t.Errorf("%v: exit %d\n%s%s", args, code, out, errOut)
				}
			}
			if diff := cmp.Diff(state, files(t, filepath.Join(k.dir, ".kyku"))); diff != "" {
				t.Errorf("the refusals changed the state:\n%s", diff)
			}
			if diff := cmp.Diff(cloud, files(t, filepath.Join(k.dir, "cloud"))); diff != "" {
				t.Errorf("the refusals changed the cloud:\n%s", diff)
			}
			file := filepath.Join(k.dir, "all.tfplan")
			code, out, errOut := k.run("", "plan", "--allow-destroy-all", "--out", file)
			if code != 0 || !strings.Contains(out, "Warning: this plan destroys every resource in state") || !strings.Contains(out, "2 to destroy") {
				t.Fatalf("plan --allow-destroy-all: exit %d\n%s%s", code, out, errOut)
			}
			stateDir := filepath.Join(k.dir, ".kyku")
			if code, _, errOut := k.run("", "apply", "--plan", file, "--auto-approve", "--state-dir", stateDir); code != 1 || !strings.Contains(errOut, "--allow-destroy-all") {
				t.Errorf("apply --plan without the word: exit %d %s", code, errOut)
			}
			code, out, errOut = k.run("", "apply", "--plan", file, "--auto-approve", "--allow-destroy-all", "--state-dir", stateDir)
			if code != 0 || !strings.Contains(out, "Apply complete: 2 succeeded") {
				t.Fatalf("apply --plan --allow-destroy-all: exit %d\n%s%s", code, out, errOut)
			}
			if left, _ := filepath.Glob(filepath.Join(k.dir, "cloud", "*", "*.json")); len(left) != 0 {
				t.Errorf("cloud after destroying everything: %v", left)
			}
		})
	}
	k := newKyku(t, sized)
	if code, _, errOut := k.run("", "apply", "--auto-approve"); code != 0 {
		t.Fatal(errOut)
	}
	if code, out, errOut := k.run("", "destroy", "--auto-approve"); code != 0 || !strings.Contains(out, "Destroy complete: 2 succeeded") {
		t.Errorf("destroy: exit %d\n%s%s", code, out, errOut)
	}
}
