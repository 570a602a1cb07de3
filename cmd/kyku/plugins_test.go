package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// pluginProject is a project using the framework test provider from a
// mirror (KYKU_PLUGIN_MIRROR) beside Kyku's own sim.
func pluginProject(t *testing.T, resources string) (*project, string) {
	t.Helper()
	mirror := tfplugintest.Mirror(t, t.TempDir(), tfplugintest.Framework)
	p := newProject(t, "")
	cloud := filepath.Join(p.dir, "items")
	if err := os.MkdirAll(cloud, 0o755); err != nil {
		t.Fatal(err)
	}
	p.write(`providers:
  fwtest: { source: kyku/fwtest, version: "~> 0.1", config: { dir: "` + cloud + `" } }
resources:
` + resources)
	p.env = append(p.env, "KYKU_PLUGIN_MIRROR="+mirror)
	return p, mirror
}

func (p *project) write(config string) {
	p.t.Helper()
	if err := os.WriteFile(filepath.Join(p.dir, "kyku.yaml"), []byte(config), 0o644); err != nil {
		p.t.Fatal(err)
	}
}

// TestProvidersThroughTheBinary: the whole life of a provider's resources
// through the kyku binary: plan refuses a provider the lock does not name;
// kyku init writes the lock; validate positions the schema's errors; apply
// creates them beside a Kyku type reading a computed attribute, with a data
// source read at plan; an update, a RequiresReplace, kyku import; a
// provider crash in the middle of an apply keeps what finished and the
// next apply converges; a changed provider binary is refused; destroy
// removes everything; no provider process outlives kyku.
func TestProvidersThroughTheBinary(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("process test")
	}
	resources := func(value, name, extra string) string {
		return `  a: { type: fwtest_item, properties: { name: ` + name + `, value: ` + value + `, secret: hunter2 } }
  key: { type: SshKey, properties: { publicKey: "ssh-ed25519 ${a.id}" } }
  b: { type: fwtest_item, properties: { name: b, value: "${seed.value}" } }
` + extra + `data:
  seed: { type: fwtest_item, properties: { name: seed } }
`
	}
	p, mirror := pluginProject(t, resources("v1", "a", ""))
	config := func(res string) string {
		data, err := os.ReadFile(filepath.Join(p.dir, "kyku.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		head, _, _ := strings.Cut(string(data), "resources:\n")
		return head + "resources:\n" + res
	}
	item := func(id, name, value string) {
		must(t, os.WriteFile(filepath.Join(p.dir, "items", id+".json"), []byte(`{"id":"`+id+`","name":"`+name+`","value":"`+value+`","revision":1}`), 0o600))
	}
	item("seed-100", "seed", "from-the-cloud")
	if code, out := p.run("plan"); code != 1 || !strings.Contains(out, `kyku.yaml:2:`) || !strings.Contains(out, `run "kyku init"`) {
		t.Fatalf("plan before init: exit %d\n%s", code, out)
	}
	code, out := p.run("init")
	if code != 0 || !strings.Contains(out, "fwtest: registry.opentofu.org/kyku/fwtest 0.1.0") {
		t.Fatalf("init: exit %d\n%s", code, out)
	}
	lock, err := os.ReadFile(filepath.Join(p.dir, ".kyku.lock.hcl"))
	if err != nil || !strings.Contains(string(lock), `provider "registry.opentofu.org/kyku/fwtest"`) || !strings.Contains(string(lock), `"h1:`) {
		t.Fatalf("lock file: %v\n%s", err, lock)
	}
	good := config(resources("v1", "a", ""))
	p.write(strings.Replace(good, "value: v1,", "valeu: v1, tags: [x],", 1))
	if code, out := p.run("validate"); code != 1 || !strings.Contains(out, `kyku.yaml:4:50: resource "a" (fwtest_item): property "valeu": unsupported argument "valeu" (did you mean "value"?)`) ||
		!strings.Contains(out, `kyku.yaml:4:61: resource "a" (fwtest_item): property "tags": map of string required`) {
		t.Errorf("validate of schema errors: exit %d\n%s", code, out)
	}
	p.write(good)
	code, out = p.run("plan", "--json")
	if code != 0 || !strings.Contains(out, `"type": "fwtest_item"`) || !strings.Contains(out, "(known after apply)") || !strings.Contains(out, "(sensitive)") ||
		strings.Contains(out, "hunter2") || !strings.Contains(out, "from-the-cloud") {
		t.Errorf("plan: exit %d\n%s", code, out)
	}
	if code, out := p.run("apply", "--auto-approve"); code != 0 {
		t.Fatalf("apply: exit %d\n%s", code, tail(out))
	}
	st := p.state()
	first := st["a"].ProviderID
	if !strings.HasPrefix(first, "a-") || st["key"].ProviderID == "" || !strings.HasPrefix(st["b"].ProviderID, "b-") {
		t.Errorf("state: %+v", st)
	}
	if code, out := p.run("plan", "--detailed-exitcode"); code != 0 {
		t.Errorf("plan after apply: exit %d\n%s", code, out)
	}
	noProviderLeft(t, mirror)

	// An update in place, then a replace (name forces one).
	p.write(config(resources("v2", "a", "")))
	if code, out := p.run("apply", "--auto-approve"); code != 0 || p.state()["a"].ProviderID != first {
		t.Fatalf("update: exit %d\n%s", code, tail(out))
	}
	p.write(config(resources("v2", "a2", "")))
	if code, out := p.run("plan"); code != 0 || !strings.Contains(out, `replace fwtest_item "a"`) {
		t.Errorf("plan of a replace: exit %d\n%s", code, out)
	}
	if code, out := p.run("apply", "--auto-approve"); code != 0 || !strings.HasPrefix(p.state()["a"].ProviderID, "a2-") {
		t.Fatalf("replace: exit %d\n%s", code, tail(out))
	}
	replaced := p.state()["a"].ProviderID

	// kyku import, then a crash in the middle of an apply.
	item("hand-9", "hand", "x")
	p.write(config(resources("v2", "a2", "  hand: { type: fwtest_item, properties: { name: hand, value: x } }\n")))
	if code, out := p.run("import", "hand", "hand-9"); code != 0 || p.state()["hand"].ProviderID != "hand-9" {
		t.Fatalf("import: exit %d\n%s", code, out)
	} else if !strings.Contains(out, "Imported fwtest_item hand (id hand-9) into state") {
		// A provider's resource has no cloud name of Kyku's: none is shown.
		t.Errorf("import says:\n%s", out)
	}
	p.write(config(resources("v2", "a2", "  hand: { type: fwtest_item, properties: { name: hand, value: x } }\n"+
		"  boom: { type: fwtest_crash, properties: { name: boom } }\n  after: { type: fwtest_item, properties: { name: after }, dependsOn: [boom] }\n")))
	if code, out := p.run("apply", "--auto-approve"); code != 1 || !strings.Contains(out, "crashed") {
		t.Errorf("apply with a crashing provider: exit %d\n%s", code, tail(out))
	}
	if st := p.state(); st["hand"].ProviderID != "hand-9" || st["a"].ProviderID != replaced || st["boom"].ProviderID != "" {
		t.Errorf("state after the crash: %+v", st)
	}
	noProviderLeft(t, mirror)
	// The create the provider died in may have made an object: refused
	// until the user says it did not (it did not).
	if code, out := p.run("apply", "--auto-approve"); code != 1 || !strings.Contains(out, "boom: an apply was interrupted while creating it") {
		t.Errorf("apply after the crash: exit %d, want boom refused\n%s", code, tail(out))
	}
	if code, out := p.run("apply", "--auto-approve", "--forget-interrupted", "boom"); code != 0 {
		t.Fatalf("apply after the crash: exit %d\n%s", code, tail(out))
	}
	if code, out := p.run("plan", "--detailed-exitcode"); code != 0 {
		t.Errorf("plan after the re-run: exit %d\n%s", code, out)
	}

	// A changed binary in the mirror is refused.
	bin := filepath.Join(mirror, "registry.opentofu.org/kyku/fwtest/0.1.0", runtime.GOOS+"_"+runtime.GOARCH, tfplugintest.Framework.Executable())
	data, _ := os.ReadFile(bin)
	if err := os.WriteFile(bin, append(data, 0), 0o755); err != nil {
		t.Fatal(err)
	}
	if code, out := p.run("plan"); code != 1 || !strings.Contains(out, "matches none of the hashes") {
		t.Errorf("plan with a changed binary: exit %d\n%s", code, out)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	if code, out := p.run("destroy", "--auto-approve"); code != 0 {
		t.Fatalf("destroy: exit %d\n%s", code, tail(out))
	}
	if left, _ := filepath.Glob(filepath.Join(p.dir, "items", "*.json")); len(left) != 1 {
		t.Errorf("left after destroy (the seed only): %v", left)
	}
	noProviderLeft(t, mirror)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// noProviderLeft fails the test when a process runs a binary of mirror.
func noProviderLeft(t *testing.T, mirror string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		var running []string
		procs, _ := filepath.Glob("/proc/[0-9]*/exe")
		for _, exe := range procs {
			if target, err := os.Readlink(exe); err == nil && strings.HasPrefix(target, mirror) {
				running = append(running, exe)
			}
		}
		if len(running) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("provider processes still running after kyku exited: %v", running)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestNullExample runs examples/null with the real hashicorp/null when
// KYKU_TEST_NULL_MIRROR names a mirror holding it (docs/benchmarks-tools.md):
// init, apply, an empty plan after it, destroy.
func TestNullExample(t *testing.T) {
	mirror := os.Getenv("KYKU_TEST_NULL_MIRROR")
	if mirror == "" {
		t.Skip("KYKU_TEST_NULL_MIRROR is not set (see docs/benchmarks-tools.md)")
	}
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", "null", "kyku.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	p := newProject(t, string(data))
	p.env = append(p.env, "KYKU_PLUGIN_MIRROR="+mirror)
	for _, args := range [][]string{{"init"}, {"apply", "--auto-approve"}, {"plan", "--detailed-exitcode"}, {"destroy", "--auto-approve"}} {
		if code, out := p.run(args...); code != 0 {
			t.Fatalf("kyku %v: exit %d\n%s", args, code, tail(out))
		}
	}
	noProviderLeft(t, mirror)
}
