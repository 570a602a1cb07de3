package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr/local"
	"github.com/kyku/action/internal/tfplugin/tfplugintest"
	"github.com/kyku/action/internal/tfstate"
)

// TestCrashOnTofuState kills the real binary (and its providers' plugin
// clients: the whole process group, as a runner that dies) with SIGKILL at
// several points of an apply on a state OpenTofu wrote
// (testdata/tfroots/estate, local backend), growing it by 120 items.
// After each kill the state is one OpenTofu reads (its format, nothing half
// written, no lock held) and keeps OpenTofu's lineage; the creates in
// flight were finished by their providers' journal keepers, which kept
// the answers and ended with their providers; every object in the cloud
// is in a state or in a kept answer; and a plan refuses nothing: no user
// step. The last apply completes: every instance once in the state, each
// the cloud's object, no object in the cloud that no state records, none
// made twice, no process left, and a final plan with no changes.
func TestCrashOnTofuState(t *testing.T) {
	t.Parallel()
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
	kills, kept := 0, 0
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
		waitNoProcessIn(t, root)
		st := readTofuState(t, statePath)
		if st.Lineage != lineage {
			t.Fatalf("after a kill the state's lineage is %s, not OpenTofu's %s", st.Lineage, lineage)
		}
		tofuReads(t, statePath)
		answers := keptAnswers(t, statePath, false)
		kept += len(answers)
		t.Logf("killed at %d bulk objects: %d resources in the state, %d answers kept", bulk(), len(st.Resources), len(answers))
		checkNoOrphans(t, root, statePath, answers)
		if code, out := p.run("plan", "-c", root); code != 0 {
			t.Fatalf("plan after a kill: exit %d\n%s", code, tail(out))
		}
	}
	if kills == 0 {
		t.Fatal("no apply was killed")
	}
	if code, out := p.run("apply", "--auto-approve", "-c", root); code != 0 {
		t.Fatalf("apply after crashes: exit %d\n%s", code, tail(out))
	}
	waitNoProcessIn(t, root)
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
	if n := bulk(); n != 120 {
		t.Errorf("the cloud holds %d bulk objects, want 120: one per instance", n)
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
	if answers := keptAnswers(t, statePath, true); len(answers) > 0 {
		t.Errorf("%d kept answers left after the apply completed", len(answers))
	}
	checkNoOrphans(t, root, statePath, nil)
	if kept == 0 {
		t.Error("no answer was kept: no kill came while a create was in flight")
	}
	t.Logf("%d applies killed, %d answers of creates in flight kept and folded; %d objects in the state, %d in the cloud", kills, kept, len(ids), len(inCloud))
}

// keptAnswers are the answers of creates in flight that the journal
// keepers of a killed apply kept beside the state at statePath; done
// (after an apply that completed): a note's temporary file is an error
// too (a killed apply may leave one, the next apply removes it).
func keptAnswers(t *testing.T, statePath string, done bool) []state.Answer {
	t.Helper()
	dir := filepath.Join(statePath+".kyku", "state.answers")
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") && done {
			t.Errorf("a half-written note %s is left", e.Name())
		}
	}
	return boxRead(t, dir)
}

// boxRead are the answers (and notes) of the answer box dir as the next
// apply reads them: each note, or the keeper's log's record of it that
// went further (the answer is kept in the log, not over the note).
func boxRead(t *testing.T, dir string) []state.Answer {
	t.Helper()
	kept, err := local.AnswerDir(dir).Answers(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var out []state.Answer
	for name, data := range kept {
		a, err := state.DecodeAnswer(name, data)
		if err != nil {
			t.Fatalf("a kept answer does not decode: %v", err)
		}
		out = append(out, a)
	}
	return out
}

// checkNoOrphans fails the test for an object of the cloud of root that
// no state records (nor its journal, not folded yet after a kill) and no
// kept answer holds (the staging workspace's objects share the cloud).
func checkNoOrphans(t *testing.T, root, statePath string, answers []state.Answer) {
	t.Helper()
	ids := stateIDs(t, statePath)
	journal, _ := os.ReadFile(filepath.Join(statePath+".kyku", "state.journal"))
	others, _ := filepath.Glob(filepath.Join(root, "terraform.tfstate.d", "*", "terraform.tfstate"))
	for _, path := range others {
		for id := range stateIDs(t, path) {
			ids[id] = true
		}
	}
	objs, _ := filepath.Glob(filepath.Join(root, "cloud", "*.json"))
	for _, f := range objs {
		id := strings.TrimSuffix(filepath.Base(f), ".json")
		if ids[id] || bytes.Contains(journal, []byte(`"`+id+`"`)) || slices.ContainsFunc(answers, func(a state.Answer) bool { return bytes.Contains(a.Response, []byte(id)) }) {
			continue
		}
		t.Errorf("object %s in the cloud is in no state and no kept answer", id)
	}
}

// waitNoProcessIn waits until no process runs in dir (kyku-engine's
// journal keepers and their providers do, in the configuration's
// directory), failing the test after 30 seconds.
func waitNoProcessIn(t *testing.T, dir string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		left := processesIn(dir)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes left running in %s: %v", dir, left)
		}
	}
}

// processesIn are the processes (not zombies) whose working directory is
// dir, by /proc (none where there is no /proc).
func processesIn(dir string) []string {
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	procs, _ := filepath.Glob("/proc/[0-9]*")
	var out []string
	for _, p := range procs {
		if cwd, err := os.Readlink(filepath.Join(p, "cwd")); err != nil || cwd != dir {
			continue
		}
		stat, err := os.ReadFile(filepath.Join(p, "stat"))
		if err != nil {
			continue
		}
		if f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:])); len(f) > 0 && f[0] == "Z" {
			continue
		}
		cmd, _ := os.ReadFile(filepath.Join(p, "cmdline"))
		out = append(out, filepath.Base(p)+" "+strings.ReplaceAll(string(cmd), "\x00", " "))
	}
	return out
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
