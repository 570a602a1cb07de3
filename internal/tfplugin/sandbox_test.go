package tfplugin_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/tfplugin"
	"github.com/kyku/action/internal/tfplugin/tfplugintest"
	"github.com/kyku/action/internal/tfschema"
)

// escape starts the framework test provider with cfg, reads fwtest_escape
// with try and returns its attributes; the process is closed before it
// returns.
func escape(t *testing.T, cfg tfplugin.Config, try map[string]any) map[string]any {
	t.Helper()
	ctx := t.Context()
	cfg.Name, cfg.Path, cfg.StopGrace = tfplugintest.Framework.Source(), frameworkProvider(t), 5*time.Second
	p, err := tfplugin.Start(ctx, cfg)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	defer p.Close()
	configure(t, p, map[string]any{"dir": t.TempDir()})
	s, err := p.Schema(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dcfg, ds := tfschema.Config(s.DataSources["fwtest_escape"].Block, try)
	if ds.HasErrors() {
		t.Fatal(ds.Err())
	}
	v, diags, err := p.ReadDataSource(ctx, "fwtest_escape", dcfg)
	if err != nil || diags.HasErrors() {
		t.Fatalf("ReadDataSource: %v %v", err, diags)
	}
	return props(v)
}

// TestSandboxStopsEveryEscape: a provider that tries every way out of its
// sandbox (fwtest_escape: its parent's environment and another process's,
// the process list, a file of the bot's, a write outside its directory,
// the metadata address directly and through the proxy) gets none of them
// in a sandbox with a network of its own, and still reaches the network
// it may, sees the variables and files granted to it, runs as a user of
// its own and leaves nothing behind. On the host's network the metadata
// address stays reachable (what NetworkHost does not cover); without a
// sandbox every escape succeeds, which shows the probe finds them.
func TestSandboxStopsEveryEscape(t *testing.T) {
	e := tfplugintest.NewEscapes(t)
	granted := filepath.Join(t.TempDir(), "granted.json")
	if err := os.WriteFile(granted, []byte(`{"key":"granted-file-content"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	// The configuration's directory: a checkout, whose .git holds the
	// job's token, with Kyku's state beside it.
	work := t.TempDir()
	for name, content := range map[string]string{"kyku.yaml": "resources: {}\n", ".git/config": "extraheader = AUTHORIZATION: basic checkout-token",
		".kyku-state/state.prod.json": `{"secret":"state-secret"}`, ".kyku/state.prod.json": `{"secret":"old-layout-secret"}`} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(work, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(work, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name    string
		sandbox *tfplugin.Sandbox
		want    []string // the escapes that get through
	}{
		{"proxied", &tfplugin.Sandbox{Network: tfplugin.NetworkProxied, Deny: e.Deny(), Files: []string{granted}}, nil},
		{"host network", &tfplugin.Sandbox{Network: tfplugin.NetworkHost, Files: []string{granted}}, []string{"metadata connect", "metadata fetch"}},
		{"none", nil, tfplugintest.AllEscapes()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.sandbox != nil {
				tfplugintest.RequireSandbox(t, tc.sandbox)
				tc.sandbox.TempDir = t.TempDir()
			}
			os.Remove(e.Outside)
			before := goroutines()
			os.Remove(filepath.Join(work, "written"))
			try := e.Props([]string{"GRANTED_TOKEN", "PATH"}, granted, filepath.Join(work, "kyku.yaml"), filepath.Join(work, ".git/config"),
				filepath.Join(work, ".kyku-state/state.prod.json"), filepath.Join(work, ".kyku/state.prod.json"))
			try["write"] = append(try["write"].([]any), filepath.Join(work, "written"))
			got := escape(t, tfplugin.Config{Sandbox: tc.sandbox, Env: []string{"GRANTED_TOKEN=granted-env-value"}, Dir: work}, try)
			report, _ := got["report"].(string)
			if diff := cmp.Diff(tc.want, e.Succeeded(report)); diff != "" {
				t.Errorf("escapes that got through (-want +got):\n%s\nreport:\n%s", diff, report)
			}
			if !e.ReachedCloud(report) {
				t.Errorf("the allowed server was not reached:\n%s", report)
			}
			env, _ := got["env_values"].(map[string]any)
			if env["GRANTED_TOKEN"] != "granted-env-value" || env["PATH"] != "(unset)" {
				t.Errorf("variables: %v, want the granted one only", env)
			}
			reads, _ := got["read_results"].(map[string]any)
			if reads[granted] != `{"key":"granted-file-content"}` || reads[filepath.Join(work, "kyku.yaml")] != "resources: {}\n" {
				t.Errorf("the granted file and the configuration read %q", reads)
			}
			hidden := []string{".git/config", ".kyku-state/state.prod.json", ".kyku/state.prod.json", "written"}
			for _, name := range hidden {
				r := reads[filepath.Join(work, name)]
				if name == "written" {
					r = got["write_results"].(map[string]any)[filepath.Join(work, name)]
				}
				if failed := strings.HasPrefix(r.(string), "error: "); failed != (tc.sandbox != nil) {
					t.Errorf("%s in the configuration's directory: %q", name, r)
				}
			}
			checkGoroutines(t, before)
			if tc.sandbox == nil {
				return
			}
			if uid, _ := strconv.Atoi(got["uid"].(string)); os.Geteuid() == 0 && uid < 2_000_000_000 {
				t.Errorf("the provider ran as uid %d, not a user of its own", uid)
			}
			if left, _ := os.ReadDir(tc.sandbox.TempDir); len(left) > 0 {
				t.Errorf("the sandbox left %v behind", left)
			}
		})
	}
}

// envProvider names the framework test provider for TestSandboxWithoutRoot's
// run as another user, who may not read the sources to build it.
const envProvider = "KYKU_TEST_FWTEST_PROVIDER"

func frameworkProvider(t *testing.T) string {
	if p := os.Getenv(envProvider); p != "" {
		return p
	}
	return tfplugintest.Build(t, tfplugintest.Framework)
}

// TestSandboxWithoutRoot runs TestSandboxStopsEveryEscape again as an
// unprivileged user (nobody), as the CLI run by a person does: bubblewrap
// then makes a user namespace (the person's user inside and out) and
// everything within it, and the provider stays on the host's network (a
// proxied one needs root: that case is skipped there).
func TestSandboxWithoutRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root can run the test as another user (and TestSandboxStopsEveryEscape runs as this one)")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// A directory nobody can reach, with copies of this test and of the
	// provider.
	dir, err := os.MkdirTemp("", "kyku-unprivileged-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	copyExe := func(src, name string) string {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, name)
		if err := os.WriteFile(dst, data, 0o755); err != nil {
			t.Fatal(err)
		}
		return dst
	}
	test, provider := copyExe(exe, "tfplugin.test"), copyExe(tfplugintest.Build(t, tfplugintest.Framework), "fwtest")
	cmd := exec.Command(test, "-test.run=^TestSandboxStopsEveryEscape$", "-test.v", "-test.count=1")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, envProvider + "=" + provider}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534, Groups: []uint32{}}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
	for _, want := range []string{"--- SKIP: TestSandboxStopsEveryEscape/proxied", "--- PASS: TestSandboxStopsEveryEscape/host_network", "--- PASS: TestSandboxStopsEveryEscape/none"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("as nobody, no %q:\n%s", want, out)
		}
	}
}

// TestSandboxUnavailableSaysWhy: without bubblewrap the check and the
// launch fail, saying so.
func TestSandboxUnavailableSaysWhy(t *testing.T) {
	sb := &tfplugin.Sandbox{Bwrap: "kyku-no-such-bwrap", Network: tfplugin.NetworkHost}
	err := tfplugin.CheckSandbox(t.Context(), sb)
	if err == nil || !strings.Contains(err.Error(), "no sandbox available: bubblewrap (kyku-no-such-bwrap) is not installed") {
		t.Errorf("CheckSandbox = %v", err)
	}
	_, err = tfplugin.Start(t.Context(), tfplugin.Config{Name: "x", Path: tfplugintest.Build(t, tfplugintest.Framework), Sandbox: sb})
	if err == nil || !strings.Contains(err.Error(), "bubblewrap (kyku-no-such-bwrap) is not installed") {
		t.Errorf("Start = %v", err)
	}
}
