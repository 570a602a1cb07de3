package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const policyConfig = `provider: sim
resources:
  net:
    type: Vpc
    properties: { cidr: 10.0.0.0/16 }
  web:
    type: Vm
    properties: { image: debian-12, size: large, network: "${net}" }
environments: { prod: {}, dev: {} }
`

func writePolicy(t *testing.T, dir, name, src string) string {
	t.Helper()
	p := filepath.Join(dir, "policies")
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p, name), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPlanPolicy: kyku plan --policy DIR prints the denials and warnings
// after the plan and exits 1 on a denial; a broken policy exits 1 with its
// file and line; the example policies run as they are.
func TestPlanPolicy(t *testing.T) {
	k := newKyku(t, policyConfig)
	dir := writePolicy(t, k.dir, "sizes.rego", `package kyku

deny contains sprintf("Vm %s is %s", [name, r.properties.size]) if {
	some name, r in input.resources
	r.type == "Vm"
	r.properties.size == "large"
}

warn contains "plans are checked" if true
`)
	code, out, errOut := k.run("", "plan", "--policy", dir)
	if code != 1 || !strings.Contains(out, "✗ deny: Vm web is large") || !strings.Contains(out, "! warn: plans are checked") ||
		!strings.Contains(errOut, "the policies deny this plan (1 denial(s))") {
		t.Errorf("denied plan: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	// JSON stays alone on stdout.
	code, out, errOut = k.run("", "plan", "--policy", dir, "--format", "json")
	if code != 1 || !strings.HasPrefix(out, "{") || strings.Contains(out, "deny") || !strings.Contains(errOut, "✗ deny: Vm web is large") {
		t.Errorf("json: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}

	if err := os.WriteFile(filepath.Join(dir, "sizes.rego"), []byte("package kyku\n\ndeny contains msg if {\n\tmsg := \n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = k.run("", "plan", "--policy", dir)
	if code != 1 || !strings.Contains(errOut, filepath.ToSlash(filepath.Join(dir, "sizes.rego"))+":5:1: unexpected } token") {
		t.Errorf("broken policy: exit %d\nstderr:\n%s", code, errOut)
	}

	examples, err := filepath.Abs(filepath.Join("..", "..", "examples", "policies"))
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut = k.run("", "plan", "--policy", examples, "-e", "prod")
	if code != 0 || !strings.Contains(out, "✓ no policy denies this plan") {
		t.Errorf("examples in prod: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	code, out, _ = k.run("", "plan", "--policy", examples, "-e", "dev")
	if code != 1 || !strings.Contains(out, `✗ deny: Vm "web" has size "large", which "dev" does not allow (allowed: small)`) {
		t.Errorf("examples in dev: exit %d\nstdout:\n%s", code, out)
	}
	if code, _, errOut := k.run("", "plan", "--policy", filepath.Join(k.dir, "nowhere")); code != 1 || !strings.Contains(errOut, "load policies from") {
		t.Errorf("missing policy dir: exit %d, %s", code, errOut)
	}
}

// TestPlanMermaid: kyku plan --format mermaid prints the picture of the
// change, the one the PR comment shows.
func TestPlanMermaid(t *testing.T) {
	k := newKyku(t, policyConfig)
	code, out, errOut := k.run("", "plan", "--format", "mermaid")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := "flowchart BT\n  n0[\"+ net (Vpc)\"]\n  n1[\"+ web (Vm)\"]\n  n1 --> n0\n"
	if !strings.HasPrefix(out, want) || !strings.Contains(out, "class n0,n1 create") {
		t.Errorf("picture:\n%s\nwant it to start with:\n%s", out, want)
	}
	if code, _, errOut := k.run("", "plan", "--format", "svg"); code != 1 || !strings.Contains(errOut, `unknown plan format "svg"`) {
		t.Errorf("bad format: exit %d %s", code, errOut)
	}
}
