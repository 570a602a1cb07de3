package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// What was secret when last applied stays masked (state records it, as
// Terraform's sensitive_attributes): in a plan once the configuration no
// longer says so, and in the drift report of a resource the configuration
// no longer has.

const stateSecret = "hunter2-s3cr3t-pw"

const secretVM = `provider: sim
variables:
  pw: { type: string, sensitive: true, default: ` + stateSecret + ` }
resources:
  net: { type: Vpc, properties: { cidr: 10.0.0.0/16 } }
  web: { type: Vm, properties: { image: debian-12, network: "${net}", tags: { pass: "${var.pw}" } } }
`

// editCloud changes, by hand, the properties of every sim object of typ.
func (k *kyku) editCloud(typ string, edit func(props map[string]any)) {
	k.t.Helper()
	files, _ := filepath.Glob(filepath.Join(k.dir, "cloud", "*", "*.json"))
	n := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			k.t.Fatal(err)
		}
		var o map[string]any
		if err := json.Unmarshal(data, &o); err != nil {
			k.t.Fatal(err)
		}
		if o["type"] != typ {
			continue
		}
		props, _ := o["properties"].(map[string]any)
		edit(props)
		if data, err = json.Marshal(o); err != nil {
			k.t.Fatal(err)
		}
		if err := os.WriteFile(f, data, 0o644); err != nil {
			k.t.Fatal(err)
		}
		n++
	}
	if n == 0 {
		k.t.Fatalf("no %s in the sim's cloud", typ)
	}
}

func (k *kyku) output(args ...string) string {
	k.t.Helper()
	_, out, errOut := k.run("", args...)
	return out + errOut
}

func TestOldSecretStaysMaskedWhenThePropertyStopsBeingSensitive(t *testing.T) {
	k := newKyku(t, secretVM)
	k.ok("apply", "--auto-approve")
	k.write(strings.Replace(secretVM, `"${var.pw}"`, "none-now", 1))
	for _, args := range [][]string{{"plan"}, {"plan", "--json"}} {
		out := k.output(args...)
		if strings.Contains(out, stateSecret) {
			t.Errorf("kyku %v shows the value that was secret:\n%s", args, out)
		}
		if !strings.Contains(out, "update") {
			t.Errorf("kyku %v does not show the update:\n%s", args, out)
		}
	}
	k.ok("apply", "--auto-approve")
	// Applied: the value is no secret any more, and shows.
	k.write(strings.Replace(secretVM, `"${var.pw}"`, "again", 1))
	if out := k.output("plan"); !strings.Contains(out, "none-now") {
		t.Errorf("after the value stopped being secret, the plan still masks it:\n%s", out)
	}
}

func TestDriftOfAResourceNoLongerConfiguredMasksItsSecrets(t *testing.T) {
	k := newKyku(t, secretVM)
	k.ok("apply", "--auto-approve")
	k.write(`provider: sim
resources:
  net: { type: Vpc, properties: { cidr: 10.0.0.0/16 } }
`)
	k.editCloud("Vm", func(p map[string]any) { p["tags"] = map[string]any{"pass": "changed-by-hand"} })
	for _, args := range [][]string{{"refresh", "--report-only"}, {"refresh", "--report-only", "--json"}} {
		out := k.output(args...)
		if strings.Contains(out, stateSecret) {
			t.Errorf("kyku %v shows the secret of a resource no longer configured:\n%s", args, out)
		}
		if !strings.Contains(out, "web") || !strings.Contains(out, "tags") {
			t.Errorf("kyku %v does not report web's drift:\n%s", args, out)
		}
	}
}

// TestSecretStaysMarkedUntilItsValueChanges: the property stops being
// sensitive in an apply that updates another property, its value
// unchanged: state keeps it marked until the value changes, so the plan
// that changes it does not show the old secret.
func TestSecretStaysMarkedUntilItsValueChanges(t *testing.T) {
	k := newKyku(t, secretVM)
	k.ok("apply", "--auto-approve")
	step2 := strings.Replace(secretVM, `"${var.pw}"`, stateSecret, 1)
	step2 = strings.Replace(step2, "image: debian-12,", "image: debian-12, size: large,", 1)
	k.write(step2)
	k.ok("apply", "--auto-approve")
	if r := k.state("").Resources["web"]; len(r.Sensitive) == 0 {
		t.Errorf("state forgot that web's tags held a secret, its value unchanged")
	}
	k.write(strings.Replace(step2, "pass: "+stateSecret, "pass: rotated", 1))
	if out := k.output("plan"); strings.Contains(out, stateSecret) || !strings.Contains(out, "update") {
		t.Errorf("the plan that changes the value:\n%s", out)
	}
}

// TestImportedObjectKeepsItsSecrets: an object an import: block adopts,
// the cloud already as configured, is recorded with what of it is
// secret, so the drift report of it once unconfigured masks it.
func TestImportedObjectKeepsItsSecrets(t *testing.T) {
	k := newKyku(t, secretVM)
	k.ok("apply", "--auto-approve")
	id := k.state("").Resources["web"].ProviderID
	k.ok("state", "rm", "web")
	k.write(secretVM + "import:\n  - { to: web, id: \"" + id + "\" }\n")
	k.ok("apply", "--auto-approve")
	if r := k.state("").Resources["web"]; r == nil || len(r.Sensitive) == 0 {
		t.Fatalf("imported web recorded without its secret properties: %+v", r)
	}
	k.write("provider: sim\nresources:\n  net: { type: Vpc, properties: { cidr: 10.0.0.0/16 } }\n")
	k.editCloud("Vm", func(p map[string]any) { p["tags"] = map[string]any{"pass": "changed-by-hand"} })
	if out := k.output("refresh", "--report-only"); strings.Contains(out, stateSecret) || !strings.Contains(out, "tags") {
		t.Errorf("the drift report:\n%s", out)
	}
}
