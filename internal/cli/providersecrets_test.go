package cli_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// Secrets only a Terraform provider's schema knows of, through the CLI:
// a generated password (the test providers' TP_secret's result,
// sensitive) quoted by another resource's failed create; a value state
// alone holds as secret quoted by a failed plan; a write-only attribute
// (password_wo) that reaches the provider and nothing else.

var cliProviders = []tfplugintest.Provider{tfplugintest.Framework, tfplugintest.SDK}

// newProviderKyku is a kyku whose configuration (yaml, in which TP stands
// for the provider's name and CLOUD for its cloud's directory) uses tp,
// installed from a mirror by kyku init.
func newProviderKyku(t *testing.T, tp tfplugintest.Provider, yaml string) *kyku {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the test providers")
	}
	k := newKyku(t, "")
	if err := os.MkdirAll(k.items(), 0o755); err != nil {
		t.Fatal(err)
	}
	k.env["KYKU_PLUGIN_MIRROR"] = tfplugintest.Mirror(t, t.TempDir(), tp)
	k.env["KYKU_TEST_PROVIDER"] = tp.Type
	k.writeTP(yaml)
	if code, out, errOut := k.run("", "init"); code != 0 {
		t.Fatalf("init: exit %d\n%s%s", code, out, errOut)
	}
	return k
}

func (k *kyku) items() string { return filepath.Join(k.dir, "items") }

// writeTP writes the configuration, TP and CLOUD replaced.
func (k *kyku) writeTP(yaml string) {
	k.t.Helper()
	yaml = strings.ReplaceAll(strings.ReplaceAll(yaml, "CLOUD", k.items()), "TP", k.env["KYKU_TEST_PROVIDER"])
	if err := os.WriteFile(filepath.Join(k.dir, "kyku.yaml"), []byte(yaml), 0o644); err != nil {
		k.t.Fatal(err)
	}
}

// leaks fails for every text that holds secret.
func leaks(t *testing.T, secret string, texts map[string]string) {
	t.Helper()
	for what, text := range texts {
		if strings.Contains(text, secret) {
			t.Errorf("the %s shows %q:\n%s", what, secret, text)
		}
	}
}

const providerHead = "providers:\n  TP: { source: kyku/TP, config: { dir: \"CLOUD\" } }\n"

// TestCLIGeneratedSecretQuotedByAFailedCreate: the provider generates a
// password at apply (known to no plan); the resource reading it fails to
// be created with an error quoting it. The progress log, the apply's
// summary and the error kyku exits with show it scrubbed; the plans after
// it, text and JSON, mask it.
func TestCLIGeneratedSecretQuotedByAFailedCreate(t *testing.T) {
	for _, tp := range cliProviders {
		t.Run(tp.Type, func(t *testing.T) {
			k := newProviderKyku(t, tp, providerHead+`resources:
  pw: { type: TP_secret, properties: { name: pw } }
  echo: { type: TP_echo, properties: { input: "${pw.result}", refuse: true } }
`)
			code, out, errOut := k.run("", "apply", "--auto-approve")
			if code != 1 {
				t.Fatalf("apply: exit %d, want 1\n%s%s", code, out, errOut)
			}
			leaks(t, "hunter2", map[string]string{"output": out, "error": errOut})
			for _, want := range []string{
				`create ` + tp.Type + `_echo "echo": FAILED`, // the progress line
				`refuses input "(sensitive)" (it echoes it: (sensitive))`,
			} {
				if !strings.Contains(out, want) {
					t.Errorf("the output lacks %q:\n%s", want, out)
				}
			}
			if !strings.Contains(errOut, `refuses input "(sensitive)"`) {
				t.Errorf("the error does not say what it masked:\n%s", errOut)
			}

			_, text, errText := k.run("", "plan")
			_, js, errJS := k.run("", "plan", "--json")
			leaks(t, "hunter2", map[string]string{"plan": text + errText, "plan.json": js + errJS})
			if !strings.Contains(js, `"input"`) {
				t.Errorf("plan.json does not list the masked input:\n%s%s", js, errJS)
			}
		})
	}
}

// TestCLIFailedPlanQuotingAValueSensitiveOnlyInState: the input was set
// from a sensitive variable and applied; the configuration now sets it
// in clear, and the provider refuses the change at plan, quoting the old
// value, which only state holds (as secret). kyku's error shows it
// scrubbed.
func TestCLIFailedPlanQuotingAValueSensitiveOnlyInState(t *testing.T) {
	for _, tp := range cliProviders {
		t.Run(tp.Type, func(t *testing.T) {
			k := newProviderKyku(t, tp, providerHead+`variables:
  old: { type: string, sensitive: true, default: hunter2-old-input }
resources:
  echo: { type: TP_echo, properties: { input: "${var.old}" } }
`)
			if code, out, errOut := k.run("", "apply", "--auto-approve"); code != 0 {
				t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
			}
			k.writeTP(providerHead + "resources:\n  echo: { type: TP_echo, properties: { input: new-input } }\n")
			code, out, errOut := k.run("", "plan")
			if code != 1 {
				t.Fatalf("plan: exit %d, want 1\n%s%s", code, out, errOut)
			}
			leaks(t, "hunter2", map[string]string{"output": out, "error": errOut})
			if !strings.Contains(errOut, `cannot change input from "(sensitive)" to "new-input"`) {
				t.Errorf("the error does not show the refusal scrubbed:\n%s", errOut)
			}
		})
	}
}

// TestCLIWriteOnlyAttributeReachesOnlyTheProvider: password_wo, written
// in clear in the configuration (no sensitivity to help), reaches the
// provider (its cloud records the digest of what it received) and
// appears nowhere Kyku writes: the plan, plan.json, the saved plan file,
// the apply's output and state. The saved plan is applied with the
// configuration giving the value again; given another value, it is
// refused. A provider error quoting the value shows it scrubbed.
func TestCLIWriteOnlyAttributeReachesOnlyTheProvider(t *testing.T) {
	const wo, wo2 = "wo-literal-Xy7kq", "wo-second-Xy7kq"
	for _, tp := range cliProviders {
		t.Run(tp.Type, func(t *testing.T) {
			cfg := func(value string, version int) string {
				return providerHead + "resources:\n  pw: { type: TP_secret, properties: { name: pw, password_wo: " + value +
					", password_wo_version: " + strconv.Itoa(version) + " } }\n"
			}
			k := newProviderKyku(t, tp, cfg(wo, 1))
			saved := filepath.Join(k.dir, "plan.kyku")
			code, text, errText := k.run("", "plan", "--out", saved)
			if code != 0 {
				t.Fatalf("plan: exit %d\n%s%s", code, text, errText)
			}
			_, js, errJS := k.run("", "plan", "--json")
			file, err := os.ReadFile(saved)
			if err != nil {
				t.Fatal(err)
			}
			leaks(t, "Xy7kq", map[string]string{"plan": text + errText, "plan.json": js + errJS, "saved plan file": string(file)})
			if !strings.Contains(string(file), `"writeOnly"`) {
				t.Errorf("the saved plan does not say what it left out:\n%s", file)
			}

			// Without the configuration (none where kyku looks by
			// default), there is nothing to take the value from.
			code, out, errOut := k.run("", "apply", "--plan", saved, "--auto-approve", "--state-dir", filepath.Join(k.dir, ".kyku"))
			if code != 1 || !strings.Contains(errOut, "leaves out the values of write-only attributes (pw.password_wo)") {
				t.Errorf("apply --plan without the configuration: exit %d\n%s%s", code, out, errOut)
			}
			code, out, errOut = k.run("", "apply", "--plan", saved, "--auto-approve")
			if code != 0 {
				t.Fatalf("apply --plan: exit %d\n%s%s", code, out, errOut)
			}
			st, err := os.ReadFile(filepath.Join(k.dir, ".kyku", "state.json"))
			if err != nil {
				t.Fatal(err)
			}
			leaks(t, "Xy7kq", map[string]string{"apply output": out + errOut, "state": string(st)})
			if got := tfplugintest.Received(t, k.items(), "pw"); got != tfplugintest.Digest(wo) {
				t.Errorf("the cloud received a value of digest %q, want that of %q", got, wo)
			}

			// Planned again, nothing changes: the value is not compared.
			if code, out, errOut := k.run("", "plan", "--detailed-exitcode"); code != 0 {
				t.Errorf("plan after apply: exit %d, want 0 (no changes)\n%s%s", code, out, errOut)
			}

			// A saved plan given another value at apply is refused.
			k.writeTP(cfg(wo2, 2))
			if code, out, errOut := k.run("", "plan", "--out", saved); code != 0 {
				t.Fatalf("plan: exit %d\n%s%s", code, out, errOut)
			}
			k.writeTP(cfg("wo-third-Xy7kq", 2))
			code, out, errOut = k.run("", "apply", "--plan", saved, "--auto-approve")
			if code != 1 || !strings.Contains(errOut, "the configuration differs from the one planned") {
				t.Errorf("apply --plan with another write-only value: exit %d\n%s%s", code, out, errOut)
			}
			leaks(t, "Xy7kq", map[string]string{"refusal": out + errOut})
			k.writeTP(cfg(wo2, 2))
			if code, out, errOut := k.run("", "apply", "--plan", saved, "--auto-approve"); code != 0 {
				t.Fatalf("apply --plan: exit %d\n%s%s", code, out, errOut)
			}
			if got := tfplugintest.Received(t, k.items(), "pw"); got != tfplugintest.Digest(wo2) {
				t.Errorf("after the update the cloud holds digest %q, want that of %q", got, wo2)
			}

			// The provider refuses a weak one, quoting it.
			k.writeTP(cfg(wo2, 2) + "  weak: { type: TP_secret, properties: { name: weak, password_wo: weak-Xy7kq-pass } }\n")
			code, out, errOut = k.run("", "apply", "--auto-approve")
			if code != 1 || !strings.Contains(out, `refuses password "(sensitive)"`) {
				t.Errorf("apply of a weak password: exit %d\n%s%s", code, out, errOut)
			}
			leaks(t, "Xy7kq", map[string]string{"output": out, "error": errOut})
		})
	}
}
