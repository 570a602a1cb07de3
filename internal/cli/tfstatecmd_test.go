package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/tfstate"
)

// roundTrips fails t unless the state at path reads with package tfstate
// and writes back as the very bytes stored (OpenTofu's indented form).
func roundTrips(t *testing.T, path string) *tfstate.File {
	t.Helper()
	f := readTFState(t, path)
	again, err := tfstate.Encode(f, tfstate.Indented)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if !bytes.Equal(again, data) {
		t.Errorf("%s does not round-trip:\n%s", path, cmp.Diff(string(data), string(again)))
	}
	return f
}

// TestStateCommandsOnTofuState: every kyku state command works on a state
// OpenTofu applied (testdata/tfroots/estate), and after each the state is
// still OpenTofu's (it reads with package tfstate and writes back byte for
// byte), its lineage kept: list and show read it and write nothing; mv,
// rm and import change what they name and leave every other instance as
// OpenTofu wrote it; backups lists a backup of each change, kept beside
// the state in terraform.tfstate.kyku/ (where OpenTofu looks for nothing:
// not a workspace, not a state); restore brings the first one back; pull
// prints tofu state pull's form and push takes it back.
func TestStateCommandsOnTofuState(t *testing.T) {
	k, root := tofuRoot(t, "estate")
	path := statePath(root, "")
	orig := roundTrips(t, path)
	origInst := instances(t, orig)
	kyku := func(want int, args ...string) string {
		t.Helper()
		code, out, errOut := k.run("", append(args, "-c", root)...)
		if code != want {
			t.Fatalf("kyku %v: exit %d, want %d\n%s%s", args, code, want, out, errOut)
		}
		return out + errOut
	}
	unchanged := func(what string, before []byte) {
		t.Helper()
		if now, _ := os.ReadFile(path); !bytes.Equal(now, before) {
			t.Errorf("%s wrote the state", what)
		}
	}
	// changed checks the state after a command: OpenTofu's, the lineage
	// kept, the serial raised, and the instances as want says (nil: gone).
	changed := func(what string, prev uint64, want map[string][]byte) *tfstate.File {
		t.Helper()
		f := roundTrips(t, path)
		if f.Lineage != orig.Lineage || f.Serial <= prev {
			t.Errorf("after %s: lineage %s serial %d, want %s and above %d", what, f.Lineage, f.Serial, orig.Lineage, prev)
		}
		if d := cmp.Diff(want, instances(t, f)); d != "" {
			t.Errorf("after %s, instances (-want +got):\n%s", what, d)
		}
		return f
	}
	before, _ := os.ReadFile(path)

	t.Run("list", func(t *testing.T) {
		want := "fwtest_item.web[\"a\"]\nfwtest_item.web[\"b\"]\nsdktest_item.db[0]\nsdktest_item.db[1]\n" // as tofu state list
		if d := cmp.Diff(want, kyku(0, "state", "list")); d != "" {
			t.Errorf("(-want +got):\n%s", d)
		}
		unchanged("state list", before)
	})
	t.Run("show", func(t *testing.T) {
		out := kyku(0, "state", "show", `fwtest_item.web["a"]`)
		for _, want := range []string{"# fwtest_item.web[\"a\"]:\nresource \"fwtest_item\" \"web\" {\n", `    id       = "default-web-a-2"`, "    tags     = {\n        \"workspace\" = \"default\"\n    }\n"} {
			if !strings.Contains(out, want) {
				t.Errorf("show lacks %q:\n%s", want, out)
			}
		}
		if out := kyku(1, "state", "show", "sdktest_item.dbx[0]"); !strings.Contains(out, `state show: sdktest_item.dbx[0] is not in state`) {
			t.Errorf("show of a name not in state:\n%s", out)
		}
		unchanged("state show", before)
	})
	t.Run("pull", func(t *testing.T) {
		want, _ := tfstate.Encode(orig, tfstate.Compact)
		if d := cmp.Diff(string(want)+"\n", kyku(0, "state", "pull")); d != "" {
			t.Errorf("pull is not tofu state pull's form (-want +got):\n%s", d)
		}
		unchanged("state pull", before)
	})

	var serial = orig.Serial
	t.Run("mv", func(t *testing.T) {
		kyku(0, "state", "mv", "sdktest_item.db[1]", "sdktest_item.db[5]")
		want := map[string][]byte{}
		for a, in := range origInst {
			want[a] = in
		}
		delete(want, "sdktest_item.db[1]")
		moved := instances(t, readTFState(t, path))["sdktest_item.db[5]"]
		if !bytes.Equal(bytes.Replace(moved, []byte(`"index_key":5`), []byte(`"index_key":1`), 1), origInst["sdktest_item.db[1]"]) {
			t.Errorf("the moved instance is not the one OpenTofu wrote:\n%s\n%s", moved, origInst["sdktest_item.db[1]"])
		}
		want["sdktest_item.db[5]"] = moved
		serial = changed("state mv", serial, want).Serial
	})
	t.Run("rm", func(t *testing.T) {
		kyku(0, "state", "rm", "sdktest_item.db[5]")
		want := map[string][]byte{}
		for a, in := range origInst {
			want[a] = in
		}
		delete(want, "sdktest_item.db[1]")
		serial = changed("state rm", serial, want).Serial
	})
	t.Run("import", func(t *testing.T) {
		kyku(0, "import", "sdktest_item.db[1]", "default-db-1-4")
		f := roundTrips(t, path)
		// One write, one serial, as OpenTofu counts: recording Kyku's
		// deploy prefix beside the state changes nothing in it.
		if f.Lineage != orig.Lineage || f.Serial != serial+1 {
			t.Errorf("after import: lineage %s serial %d, want %s and %d", f.Lineage, f.Serial, orig.Lineage, serial+1)
		}
		serial = f.Serial
		got := instances(t, f)
		for a, in := range origInst {
			if a != "sdktest_item.db[1]" && !bytes.Equal(got[a], in) {
				t.Errorf("import changed %s", a)
			}
		}
		if got["sdktest_item.db[1]"] == nil {
			t.Error("the imported instance is not in the state")
		}
		if out := kyku(0, "plan", "--detailed-exitcode"); !strings.Contains(out, "No changes.") {
			t.Errorf("plan after import:\n%s", out)
		}
	})
	var first string
	t.Run("backups", func(t *testing.T) {
		out := kyku(0, "state", "backups")
		keys := regexp.MustCompile(`backups/\S+`).FindAllString(out, -1)
		if len(keys) < 3 {
			t.Fatalf("want a backup for each of mv, rm and import:\n%s", out)
		}
		first = keys[len(keys)-1] // newest first
		if !strings.Contains(out, "serial 1  "+first) {
			t.Errorf("the oldest backup is not of the state OpenTofu wrote (serial 1):\n%s", out)
		}
		// Beside the state, where OpenTofu looks for nothing: not in
		// terraform.tfstate.d (its workspaces), not a *.tfstate.
		for _, k := range keys {
			if _, err := os.Stat(filepath.Join(root, "terraform.tfstate.kyku", k)); err != nil {
				t.Errorf("backup %s is not in terraform.tfstate.kyku/: %v", k, err)
			}
		}
		ws, _ := os.ReadDir(filepath.Join(root, "terraform.tfstate.d"))
		if len(ws) != 1 || ws[0].Name() != "staging" {
			t.Errorf("OpenTofu's workspaces directory holds %v", ws)
		}
		tf, _ := filepath.Glob(filepath.Join(root, "*.tfstate"))
		if d := cmp.Diff([]string{path}, tf); d != "" {
			t.Errorf("state files in the root (-want +got):\n%s", d)
		}
	})
	t.Run("restore", func(t *testing.T) {
		kyku(0, "state", "rm", "fwtest_item.web[\"b\"]")
		serial = readTFState(t, path).Serial
		kyku(0, "state", "restore", first)
		changed("state restore", serial, origInst)
		if out := kyku(0, "plan", "--detailed-exitcode"); !strings.Contains(out, "No changes.") {
			t.Errorf("plan after restore:\n%s", out)
		}
	})
	t.Run("push", func(t *testing.T) {
		now := readTFState(t, path)
		now.Serial += 10
		now.Resources = now.Resources[:1]
		data, _ := tfstate.Encode(now, tfstate.Compact)
		file := filepath.Join(k.dir, "pushed.tfstate")
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if out := kyku(0, "state", "push", file); !strings.Contains(out, "Pushed "+file) {
			t.Errorf("push:\n%s", out)
		}
		if got := roundTrips(t, path); got.Serial != now.Serial || len(got.Resources) != 1 {
			t.Errorf("after push: serial %d, %d resources; want %d and 1", got.Serial, len(got.Resources), now.Serial)
		}
		// "-": the state from stdin, as tofu's; the stored state itself is no write.
		if code, out, errOut := k.run(string(data), "state", "push", "-", "-c", root); code != 0 || !strings.Contains(out, "nothing to push") {
			t.Errorf("push - of the stored state: exit %d\n%s%s", code, out, errOut)
		}
		old, _ := tfstate.Encode(orig, tfstate.Compact)
		stale := filepath.Join(k.dir, "stale.tfstate")
		if err := os.WriteFile(stale, old, 0o644); err != nil {
			t.Fatal(err)
		}
		if out := kyku(1, "state", "push", stale); !strings.Contains(out, "is older than the stored state's") {
			t.Errorf("push of an older serial:\n%s", out)
		}
	})
}
