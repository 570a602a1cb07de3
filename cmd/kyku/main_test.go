package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/kyku/action/internal/statemgr/gcs/gcstest"
	"github.com/kyku/action/internal/statemgr/s3/s3test"
)

// kykuBin is the real binary, built once for the process tests.
var kykuBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "kyku-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	kykuBin = filepath.Join(dir, "kyku")
	// The version as a release build sets it (see main.go).
	// kyku-engine beside it, built alike: kyku runs every command but
	// version and help in it. -s -w as the test binaries (.ci/run): no
	// symbol table or DWARF, a quarter of each link (stack traces and
	// positions come from the pcln table, kept).
	out, err := exec.Command("go", "build", "-race", "-ldflags=-s -w -X main.version="+testVersion, "-o", dir+string(filepath.Separator), ".", "../kyku-engine").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "build kyku: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	// The GCS emulator beside the S3 server (TestCrashOnTofuStateInGCS).
	stopGCS, err := gcstest.Setup()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := s3test.Main(m)
	stopGCS()
	os.RemoveAll(dir)
	os.Exit(code)
}

// testVersion is the version the test binary is linked with.
const testVersion = "v0.0.0-kyku-test"

// TestVersionCommand: the binary prints the version it was linked with,
// then the commit and the Go version, for version, --version and -v, in a
// directory with no configuration.
func TestVersionCommand(t *testing.T) {
	p := newProject(t, "")
	if err := os.Remove(filepath.Join(p.dir, "kyku.yaml")); err != nil {
		t.Fatal(err)
	}
	for _, arg := range []string{"version", "--version", "-v"} {
		code, out := p.run(arg)
		lines := strings.Split(out, "\n")
		if code != 0 || len(lines) != 4 || lines[0] != "kyku "+testVersion || !strings.HasPrefix(lines[1], "commit ") || !strings.HasPrefix(lines[2], runtime.Version()+" ") {
			t.Errorf("kyku %s: exit %d\n%s", arg, code, out)
		}
	}
}

// project is a working directory with a config, a sim cloud and local state.
type project struct {
	t   *testing.T
	dir string
	env []string
}

func newProject(t *testing.T, config string) *project {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "kyku.yaml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	return &project{t: t, dir: dir, env: []string{
		"KYKU_SIM_DIR=" + filepath.Join(dir, "cloud"),
		"KYKU_RETRY_BASE=1ms", "KYKU_DESTROY_BASE=1ms", "KYKU_VERIFY_INTERVAL=1ms",
		"NO_COLOR=1",
	}}
}

func (p *project) cmd(ctx context.Context, args ...string) *exec.Cmd {
	c := exec.CommandContext(ctx, kykuBin, args...)
	c.Dir = p.dir
	c.Env = append(os.Environ(), p.env...)
	return c
}

// run runs kyku to completion and returns its exit code and output.
func (p *project) run(args ...string) (int, string) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.t.Context(), 2*time.Minute)
	defer cancel()
	var out bytes.Buffer
	c := p.cmd(ctx, args...)
	c.Stdout, c.Stderr = &out, &out
	err := c.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), out.String()
	}
	if err != nil {
		p.t.Fatalf("kyku %v: %v", args, err)
	}
	return 0, out.String()
}

// cloud returns the sim's objects: cloud name → count, and provider IDs.
func (p *project) cloud() (map[string]int, map[string]bool) {
	p.t.Helper()
	names, ids := map[string]int{}, map[string]bool{}
	files, err := filepath.Glob(filepath.Join(p.dir, "cloud", "*", "*.json"))
	if err != nil {
		p.t.Fatal(err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			p.t.Fatal(err)
		}
		var o struct{ ID, Type, CloudName string }
		if err := json.Unmarshal(data, &o); err != nil {
			p.t.Fatalf("%s: %v", f, err)
		}
		names[o.Type+"/"+o.CloudName]++
		ids[o.ID] = true
	}
	return names, ids
}

func (p *project) state() map[string]struct{ ProviderID, Type string } {
	p.t.Helper()
	data, err := os.ReadFile(filepath.Join(p.dir, ".kyku-state", "state.json"))
	if err != nil {
		p.t.Fatal(err)
	}
	var st struct {
		Resources map[string]struct{ ProviderID, Type string }
	}
	if err := json.Unmarshal(data, &st); err != nil {
		p.t.Fatal(err)
	}
	return st.Resources
}

// layered is n resources in 4 levels: Vpc ← SecurityGroup ← Vm ← TargetGroup.
func layered(n int) string {
	var b strings.Builder
	b.WriteString("provider: sim\nresources:\n")
	for i := 0; i < n/4; i++ {
		fmt.Fprintf(&b, "  vpc-%d:\n    type: Vpc\n    properties: { cidr: 10.%d.0.0/16 }\n", i, i%250)
		fmt.Fprintf(&b, "  sg-%d:\n    type: SecurityGroup\n    properties: { network: \"${vpc-%d}\" }\n", i, i)
		fmt.Fprintf(&b, "  vm-%d:\n    type: Vm\n    properties: { network: \"${vpc-%d}\", securityGroups: [\"${sg-%d}\"], image: debian-12 }\n", i, i, i)
		fmt.Fprintf(&b, "  tg-%d:\n    type: TargetGroup\n    properties: { targets: [\"${vm-%d}\"] }\n", i, i)
	}
	return b.String()
}
