package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kyku/action/internal/tfplugin/tfplugintest"
	"github.com/kyku/action/internal/tfstate"
)

// TestCrashOnTofuState kills the real binary (and its providers: the
// whole process group, as a runner that dies) with SIGKILL at several
// points of an apply on a state OpenTofu wrote (testdata/tfroots/estate,
// local backend), growing it by 120 items. After each kill the state is
// one OpenTofu reads (its format, nothing half written, no lock held) and
// keeps OpenTofu's lineage, and a plan refuses every create that was in
// flight: the test then does what the refusal says, as a user would
// (resolveInterrupted). The last apply completes: every instance once in
// the state, each the cloud's object, no object in the cloud that no
// state records, none made twice, and a final plan with no changes.
func TestCrashOnTofuState(t *testing.T) {
	if testing.Short() {
		t.Skip("process test")
	}
	root := filepath.Join(t.TempDir(), "estate")
	copyDir(t, filepath.Join("..", "..", "internal", "cli", "testdata", "tfroots", "estate"), root)
	if err := os.WriteFile(filepath.Join(root, "bulk.tf"), []byte(`resource "fwtest_item" "bulk" {
  count = 120
  name  = "bulk-${count.index}"
  value = "v1"
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	p := &project{t: t, dir: root, env: []string{
		"KYKU_PLUGIN_MIRROR=" + tfplugintest.Mirror(t, t.TempDir(), tfplugintest.Framework, tfplugintest.SDK),
		"KYKU_RETRY_BASE=1ms", "NO_COLOR=1",
	}}
	if code, out := p.run("init", "-c", root); code != 0 {
		t.Fatalf("init: exit %d\n%s", code, out)
	}
	statePath := filepath.Join(root, "terraform.tfstate")
	lineage := readTofuState(t, statePath).Lineage
	kills, refused := 0, 0
	bulk := func() int {
		objs, _ := filepath.Glob(filepath.Join(root, "cloud", "bulk-*.json"))
		return len(objs)
	}
	// Each apply is killed once the cloud holds this many bulk objects:
	// in the middle of creating them.
	for _, at := range []int{10, 40, 70, 100} {
		if killApplyAt(t, p, bulk, at, "apply", "--auto-approve", "--parallelism", "4", "-c", root) {
			kills++
		}
		st := readTofuState(t, statePath)
		if st.Lineage != lineage {
			t.Fatalf("after a kill the state's lineage is %s, not OpenTofu's %s", st.Lineage, lineage)
		}
		tofuReads(t, statePath)
		t.Logf("killed at %d bulk objects: %d resources in the state", bulk(), len(st.Resources))
		refused += resolveInterrupted(t, p, root, statePath)
	}
	if kills == 0 {
		t.Fatal("no apply was killed")
	}
	if code, out := p.run("apply", "--auto-approve", "-c", root); code != 0 {
		t.Fatalf("apply after crashes: exit %d\n%s", code, tail(out))
	}
	st := readTofuState(t, statePath)
	seen := map[string]bool{}
	ids := map[string]bool{}
	for _, r := range st.Resources {
		for _, in := range r.Instances {
			addr := r.InstanceAddr(in.Key)
			if seen[addr] || in.Deposed != "" {
				t.Errorf("%s is in the state twice", addr)
			}
			seen[addr] = true
			var attrs struct{ ID string }
			if err := json.Unmarshal(in.Attributes, &attrs); err != nil {
				t.Fatal(err)
			}
			ids[attrs.ID] = true
		}
	}
	if len(seen) != 124 {
		t.Errorf("the state holds %d instances, want 124", len(seen))
	}
	cloud, _ := filepath.Glob(filepath.Join(root, "cloud", "*.json"))
	inCloud := map[string]bool{}
	for _, f := range cloud {
		inCloud[strings.TrimSuffix(filepath.Base(f), ".json")] = true
	}
	for id := range ids {
		if !inCloud[id] {
			t.Errorf("the state's object %s is not in the cloud", id)
		}
	}
	if code, out := p.run("plan", "--detailed-exitcode", "-c", root); code != 0 {
		t.Errorf("plan after the apply completed: exit %d, want 0\n%s", code, tail(out))
	}
	if _, err := os.Stat(filepath.Join(root, ".terraform.tfstate.lock.info")); err == nil {
		t.Error("a lock body is left behind")
	}
	// Each create in flight at a kill was journaled before the provider
	// was asked: its object, if made, was imported at its address.
	// The staging workspace's objects share the cloud.
	others, _ := filepath.Glob(filepath.Join(root, "terraform.tfstate.d", "*", "terraform.tfstate"))
	for _, path := range others {
		for id := range stateIDs(t, path) {
			ids[id] = true
		}
	}
	for id := range inCloud {
		if !ids[id] {
			t.Errorf("object %s in the cloud is in no state", id)
		}
	}
	if refused == 0 {
		t.Error("no plan refused an interrupted create: no kill came while a create was in flight")
	}
	t.Logf("%d applies killed, %d interrupted creates resolved; %d objects in the states, %d in the cloud", kills, refused, len(ids), len(inCloud))
}

// interruptedLine is the refusal of a plan that would create addr again.
func interruptedLine(addr string) string {
	return addr + ": an apply was interrupted while creating it and the object it may have made is in no state: " +
		"import it (kyku import '" + addr + "' ID, or an import block) or, if it does not exist, drop the intent with kyku apply --forget-interrupted '" + addr + "'"
}

var interruptedAddr = regexp.MustCompile(`(fwtest_item\.bulk\[\d+\]): an apply was interrupted`)

// resolveInterrupted does what a plan's refusal of interrupted creates
// says, as a user would: it imports the object the cloud holds of each
// refused address (by its name, bulk-N), or, when the cloud holds none,
// drops the intent (and creates the address, alone). It returns how many
// addresses were refused.
func resolveInterrupted(t *testing.T, p *project, root, statePath string) int {
	t.Helper()
	code, out := p.run("plan", "-c", root)
	ms := interruptedAddr.FindAllStringSubmatch(out, -1)
	if len(ms) == 0 {
		if code != 0 {
			t.Fatalf("plan after a kill: exit %d\n%s", code, tail(out))
		}
		return 0
	}
	if code == 0 {
		t.Fatalf("plan refused interrupted creates with exit 0\n%s", tail(out))
	}
	inState := stateIDs(t, statePath)
	var forget []string
	for _, m := range ms {
		addr := m[1]
		if !strings.Contains(out, interruptedLine(addr)) {
			t.Errorf("plan's refusal of %s is not the line\n%s\nin\n%s", addr, interruptedLine(addr), tail(out))
		}
		name := "bulk-" + strings.TrimSuffix(strings.TrimPrefix(addr, "fwtest_item.bulk["), "]")
		var orphans []string
		objs, _ := filepath.Glob(filepath.Join(root, "cloud", name+"-*.json"))
		for _, f := range objs {
			if id := strings.TrimSuffix(filepath.Base(f), ".json"); !inState[id] {
				orphans = append(orphans, id)
			}
		}
		switch len(orphans) {
		case 0:
			forget = append(forget, addr)
		case 1:
			t.Logf("import %s %s", addr, orphans[0])
			if code, out := p.run("import", "-c", root, addr, orphans[0]); code != 0 {
				t.Fatalf("import %s %s: exit %d\n%s", addr, orphans[0], code, tail(out))
			}
		default:
			t.Fatalf("%s: the cloud holds %d objects no state records: %v", addr, len(orphans), orphans)
		}
	}
	if len(forget) > 0 {
		args := []string{"apply", "--auto-approve", "-c", root}
		for _, a := range forget {
			args = append(args, "--forget-interrupted", a, "--target", a)
		}
		if code, out := p.run(args...); code != 0 {
			t.Fatalf("apply --forget-interrupted: exit %d\n%s", code, tail(out))
		}
	}
	t.Logf("resolved %d interrupted creates (forgotten: %v)", len(ms), forget)
	return len(ms)
}

// stateIDs are the IDs of the objects the Terraform state at path holds.
func stateIDs(t *testing.T, path string) map[string]bool {
	t.Helper()
	ids := map[string]bool{}
	for _, r := range readTofuState(t, path).Resources {
		for _, in := range r.Instances {
			var attrs struct{ ID string }
			if err := json.Unmarshal(in.Attributes, &attrs); err != nil {
				t.Fatal(err)
			}
			ids[attrs.ID] = true
		}
	}
	return ids
}

func readTofuState(t *testing.T, path string) *tfstate.File {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := tfstate.Decode(path, data)
	if err != nil {
		t.Fatalf("the state is not one OpenTofu reads: %v", err)
	}
	return f
}

// tofuReads has a real tofu (KYKU_TEST_TOFU; nothing without) list the
// state at path: it must read it.
func tofuReads(t *testing.T, path string) {
	t.Helper()
	bin := os.Getenv("KYKU_TEST_TOFU")
	if bin == "" {
		return
	}
	c := exec.Command(bin, "state", "list", "-no-color", "-state="+path)
	c.Dir = t.TempDir()
	c.Env = append(os.Environ(), "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1")
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("tofu state list of %s: %v\n%s", path, err, out)
	}
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	if out, err := exec.Command("cp", "-r", from, to).CombinedOutput(); err != nil {
		t.Fatalf("copy %s: %v\n%s", from, err, out)
	}
}

// killApplyAt starts kyku with args in its own process group and
// SIGKILLs the group once count() reaches at (while it is creating
// objects), or lets it end first; it reports whether it killed it.
func killApplyAt(t *testing.T, p *project, count func() int, at int, args ...string) bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	c := p.cmd(ctx, args...)
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = c.Wait(); close(done) }()
wait:
	for count() < at {
		select {
		case <-done:
			break wait
		case <-time.After(2 * time.Millisecond):
		}
	}
	killed := syscall.Kill(-c.Process.Pid, syscall.SIGKILL) == nil
	<-done
	return killed
}
