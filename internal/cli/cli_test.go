package cli_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kyku/action/internal/cli"
	"github.com/kyku/action/internal/cli/clipolicy"
	goldenfile "github.com/kyku/action/internal/golden"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/sim"
	"github.com/kyku/action/internal/workspace/awsstore"
)

// kyku runs the CLI in-process in dir with a sim cloud under dir.
type kyku struct {
	t   *testing.T
	dir string
	env map[string]string
	// providerStarted, when set, is cli.Env.ProviderStarted.
	providerStarted func(pid int)
	// terraformLoaded, when set, is cli.Env.TerraformLoaded.
	terraformLoaded func()
	// executing, when set, is cli.Env.Executing.
	executing func() func()
}

func newKyku(t *testing.T, config string) *kyku {
	t.Helper()
	dir := t.TempDir()
	if config != "" {
		if err := os.WriteFile(filepath.Join(dir, "kyku.yaml"), []byte(config), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return &kyku{t: t, dir: dir, env: map[string]string{
		"KYKU_SIM_DIR": filepath.Join(dir, "cloud"), "NO_COLOR": "1", "USER": "tester",
	}}
}

// run runs one command; unless the arguments name -c or --state-dir
// themselves, both point into the project.
func (k *kyku) run(stdin string, args ...string) (int, string, string) {
	k.t.Helper()
	explicit := false
	for _, a := range args {
		explicit = explicit || a == "-c" || a == "--state-dir"
	}
	if !explicit {
		args = append(args, "-c", filepath.Join(k.dir, "kyku.yaml"), "--state-dir", filepath.Join(k.dir, ".kyku"))
	}
	var out, errOut bytes.Buffer
	code := cli.Run(k.t.Context(), args, cli.Env{
		Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errOut,
		Getenv:    func(k2 string) string { return k.env[k2] },
		Providers: provider.Registry{"sim": sim.Factory},
		Hostname:  "testhost", PID: 4242,
		ProviderStarted: k.providerStarted,
		TerraformLoaded: k.terraformLoaded,
		Executing:       k.executing,
		AWS:             awsstore.Store{}, Policies: clipolicy.Load,
		// The cheapest scrypt cost Kyku seals with: at the default, each
		// passphrase command derived for about a second under -race.
		ScryptCost: 1 << 10,
	})
	return code, out.String(), errOut.String()
}

const cfg = `provider: sim
resources:
  net:
    type: Vpc
    properties: { cidr: 10.0.0.0/16 }
  sg:
    type: SecurityGroup
    properties: { network: "${net}", ingress: [ { port: 443, cidr: 0.0.0.0/0 } ] }
  web:
    type: Vm
    properties: { network: "${net}", securityGroups: [ "${sg}" ], image: debian-12, userData: "s3cr3t-value" }
outputs:
  netId: ${net}
  webIp: ${web.publicIp}
`

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	goldenfile.Check(t, name, got)
}

func TestValidateReportsEveryErrorWithPosition(t *testing.T) {
	k := newKyku(t, `provider: sim
resources:
  web:
    type: Vmm
  db:
    type: Database
    properties: { engine: oracle, sise: 1 }
`)
	code, out, errOut := k.run("", "validate")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", code, out, errOut)
	}
	got := strings.ReplaceAll(errOut, k.dir+string(filepath.Separator), "")
	golden(t, "validate-errors.golden", got)
	for _, want := range []string{"kyku.yaml:4:11:", "kyku.yaml:7:", "unknown type \"Vmm\"", "sise"} {
		if !strings.Contains(got, want) {
			t.Errorf("validate output lacks %q:\n%s", want, got)
		}
	}
}

func TestPlanApplyOutputRoundTrip(t *testing.T) {
	k := newKyku(t, cfg)
	code, out, errOut := k.run("", "plan", "--detailed-exitcode")
	if code != 2 {
		t.Fatalf("plan with changes: exit %d, want 2\n%s%s", code, out, errOut)
	}
	golden(t, "plan-create.golden", out)

	// Without "yes" nothing happens.
	if code, out, _ := k.run("no\n", "apply"); code != 1 || !strings.Contains(out, "Apply cancelled.") {
		t.Fatalf("apply answered no: exit %d\n%s", code, out)
	}
	if code, _, _ := k.run("", "plan", "--detailed-exitcode"); code != 2 {
		t.Fatal("declined apply changed something")
	}
	code, out, errOut = k.run("yes\n", "apply")
	if code != 0 || !strings.Contains(out, "Apply complete: 3 succeeded, 0 failed, 0 skipped") {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	if strings.Contains(out, "s3cr3t-value") {
		t.Error("apply output shows a sensitive value")
	}
	if code, out, _ := k.run("", "plan", "--detailed-exitcode"); code != 0 || !strings.Contains(out, "No changes.") {
		t.Fatalf("plan after apply: exit %d\n%s", code, out)
	}
	code, out, _ = k.run("", "output", "--flat")
	var outs map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &outs) != nil || outs["netId"] == nil || outs["webIp"] == nil {
		t.Fatalf("output --flat: exit %d %q", code, out)
	}
	if code, out, _ := k.run("", "output", "netId"); code != 0 || strings.TrimSpace(out) != outs["netId"] {
		t.Errorf("output netId = %q, want %v", out, outs["netId"])
	}
	if code, _, errOut := k.run("", "output", "nope"); code != 1 || !strings.Contains(errOut, `output "nope" not found`) {
		t.Errorf("unknown output: exit %d %s", code, errOut)
	}
}

func TestSavedPlanViaCLI(t *testing.T) {
	k := newKyku(t, cfg)
	planFile := filepath.Join(k.dir, "plan.json")
	if code, _, errOut := k.run("", "plan", "--out", planFile); code != 0 {
		t.Fatalf("plan --out: %s", errOut)
	}
	// Apply it without the config.
	if err := os.Rename(filepath.Join(k.dir, "kyku.yaml"), filepath.Join(k.dir, "moved.yaml")); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := k.run("", "apply", "--plan", planFile, "--auto-approve", "--state-dir", filepath.Join(k.dir, ".kyku"))
	if code != 0 || !strings.Contains(out, "Apply complete: 3 succeeded") {
		t.Fatalf("apply --plan: exit %d\n%s%s", code, out, errOut)
	}
	// The same plan again is stale: the state moved on.
	code, _, errOut = k.run("", "apply", "--plan", planFile, "--auto-approve", "--state-dir", filepath.Join(k.dir, ".kyku"))
	if code != 1 || !strings.Contains(errOut, "stale plan: state changed since it was planned; plan again") {
		t.Fatalf("stale plan: exit %d %s", code, errOut)
	}
}

// A saved destroy plan (plan --destroy --out) embeds no config: apply
// finds the backend through -c and applies it.
func TestSavedDestroyPlanViaCLI(t *testing.T) {
	k := newKyku(t, cfg)
	if code, _, errOut := k.run("", "apply", "--auto-approve"); code != 0 {
		t.Fatal(errOut)
	}
	planFile := filepath.Join(k.dir, "destroy.json")
	if code, _, errOut := k.run("", "plan", "--destroy", "--out", planFile); code != 0 {
		t.Fatalf("plan --destroy --out: %s", errOut)
	}
	code, out, errOut := k.run("", "apply", "--plan", planFile, "--auto-approve", "-c", filepath.Join(k.dir, "kyku.yaml"), "--state-dir", filepath.Join(k.dir, ".kyku"))
	if code != 0 || !strings.Contains(out, "Apply complete: 3 succeeded") {
		t.Fatalf("apply --plan of a destroy plan: exit %d\n%s%s", code, out, errOut)
	}
	if files, _ := filepath.Glob(filepath.Join(k.dir, "cloud", "*", "*.json")); len(files) != 0 {
		t.Errorf("cloud after the destroy plan: %v", files)
	}
}

func TestStateCommands(t *testing.T) {
	k := newKyku(t, cfg)
	if code, _, errOut := k.run("", "apply", "--auto-approve"); code != 0 {
		t.Fatal(errOut)
	}
	stateDir := filepath.Join(k.dir, ".kyku")
	code, pulled, errOut := k.run("", "state", "pull", "--state-dir", stateDir, "-c", filepath.Join(k.dir, "kyku.yaml"))
	if code != 0 {
		t.Fatalf("state pull: %s", errOut)
	}
	file := filepath.Join(k.dir, "pulled.json")
	if err := os.WriteFile(file, []byte(pulled), 0o644); err != nil {
		t.Fatal(err)
	}
	args := func(a ...string) []string {
		return append(a, "--state-dir", stateDir, "-c", filepath.Join(k.dir, "kyku.yaml"))
	}
	// Pushing the same serial back is refused; --force pushes it.
	if code, _, errOut := k.run("", args("state", "push", file)...); code != 1 || !strings.Contains(errOut, "is not newer") {
		t.Fatalf("push of an old serial: exit %d %s", code, errOut)
	}
	var st map[string]any
	_ = json.Unmarshal([]byte(pulled), &st)
	st["metadata"].(map[string]any)["lineage"] = "another"
	other, _ := json.Marshal(st)
	otherFile := filepath.Join(k.dir, "other.json")
	_ = os.WriteFile(otherFile, other, 0o644)
	if code, _, errOut := k.run("", args("state", "push", otherFile)...); code != 1 || !strings.Contains(errOut, "lineage") {
		t.Fatalf("push of another lineage: exit %d %s", code, errOut)
	}
	if code, out, errOut := k.run("", args("state", "push", "--force", file)...); code != 0 || !strings.Contains(out, "Pushed") {
		t.Fatalf("push --force: exit %d %s%s", code, out, errOut)
	}
	// Backups list and restore.
	code, out, _ := k.run("", args("state", "backups")...)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) < 2 {
		t.Fatalf("state backups: exit %d\n%s", code, out)
	}
	key := strings.Fields(lines[len(lines)-1])[3]
	if code, out, errOut := k.run("", args("state", "restore", key)...); code != 0 || !strings.Contains(out, "Restored") {
		t.Fatalf("state restore %s: exit %d %s%s", key, code, out, errOut)
	}
	// Force-unlock with a wrong token is refused.
	if code, _, errOut := k.run("", args("force-unlock", "deadbeef")...); code != 1 || errOut == "" {
		t.Errorf("force-unlock of no lock: exit %d %q", code, errOut)
	}
}

func TestGraphFormats(t *testing.T) {
	k := newKyku(t, cfg)
	for _, f := range []string{"dot", "mermaid"} {
		code, out, errOut := k.run("", "graph", "--format", f)
		if code != 0 {
			t.Fatalf("graph %s: %s", f, errOut)
		}
		golden(t, "graph."+f+".golden", out)
	}
	if code, _, errOut := k.run("", "graph", "--format", "svg"); code != 1 || !strings.Contains(errOut, "unknown graph format") {
		t.Errorf("bad format: exit %d %s", code, errOut)
	}
}

func TestUnknownCommand(t *testing.T) {
	k := newKyku(t, cfg)
	if code, _, errOut := k.run("", "aply"); code != 1 || !strings.Contains(errOut, `unknown command "aply"`) {
		t.Errorf("exit %d %s", code, errOut)
	}
}

// TestPlanDestroyRefusesTargetAndReplace: kyku plan --destroy plans every
// resource in state; a --target, --exclude or --replace beside it would be ignored,
// so it is refused, saying why.
func TestPlanDestroyRefusesTargetAndReplace(t *testing.T) {
	k := newKyku(t, "provider: sim\nresources:\n  web: { type: SshKey, properties: { publicKey: k } }\n")
	for _, flag := range []string{"--target", "--exclude", "--replace"} {
		code, _, errOut := k.run("", "plan", "--destroy", flag, "web")
		if code != 1 || !strings.Contains(errOut, "--destroy plans to destroy everything in state: it cannot be given with --target, --exclude or --replace") {
			t.Errorf("plan --destroy %s web: exit %d\n%s", flag, code, errOut)
		}
	}
}
