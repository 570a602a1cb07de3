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

// TestProvidersThroughTheBinary: plan refuses a provider the lock does
// not name; kyku init writes the lock; apply creates the provider's
// resources beside a Kyku type reading a computed attribute; the plan
// after it is empty; a changed provider binary is refused; destroy
// removes everything; no provider process outlives kyku.
func TestProvidersThroughTheBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("process test")
	}
	p, mirror := pluginProject(t, `  a: { type: fwtest_item, properties: { name: a, value: v1, secret: hunter2 } }
  key: { type: SshKey, properties: { publicKey: "ssh-ed25519 ${a.id}" } }
`)
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
	code, out = p.run("plan", "--json")
	if code != 0 || !strings.Contains(out, `"type": "fwtest_item"`) || !strings.Contains(out, "(known after apply)") || !strings.Contains(out, "(sensitive)") || strings.Contains(out, "hunter2") {
		t.Errorf("plan: exit %d\n%s", code, out)
	}
	if code, out := p.run("apply", "--auto-approve"); code != 0 {
		t.Fatalf("apply: exit %d\n%s", code, tail(out))
	}
	st := p.state()
	if st["a"].ProviderID != "a-1" || st["key"].ProviderID == "" {
		t.Errorf("state: %+v", st)
	}
	if code, out := p.run("plan", "--detailed-exitcode"); code != 0 {
		t.Errorf("plan after apply: exit %d\n%s", code, out)
	}
	noProviderLeft(t, mirror)

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
	if left, _ := filepath.Glob(filepath.Join(p.dir, "items", "*.json")); len(left) != 0 {
		t.Errorf("left after destroy: %v", left)
	}
	noProviderLeft(t, mirror)
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
