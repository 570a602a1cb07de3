package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// TestCLIWriteOnlyValuesOfResourcesATargetedPlanLeavesOut: a plan
// --target saves no write-only value, neither the targeted resource's nor
// one of a resource it does not plan, and the file applies (taking the
// values again from the configuration): first pw alone is targeted while
// pw2 sets another value, then echo alone while both do.
func TestCLIWriteOnlyValuesOfResourcesATargetedPlanLeavesOut(t *testing.T) {
	const wo, wo2 = "wo-targeted-Xy7kq", "wo-untargeted-Xy7kq"
	for _, tp := range cliProviders {
		t.Run(tp.Type, func(t *testing.T) {
			k := newProviderKyku(t, tp, providerHead+`resources:
  pw: { type: TP_secret, properties: { name: pw, password_wo: `+wo+`, password_wo_version: 1 } }
  pw2: { type: TP_secret, properties: { name: pw2, password_wo: `+wo2+`, password_wo_version: 1 } }
  echo: { type: TP_echo, properties: { input: hello } }
`)
			saved := filepath.Join(k.dir, "plan.kyku")
			for _, step := range []struct {
				target string
				lists  string // the resource the plan creates
			}{
				{target: "pw", lists: `create ` + tp.Type + `_secret "pw"`},
				{target: "echo", lists: `create ` + tp.Type + `_echo "echo"`},
			} {
				code, text, errText := k.run("", "plan", "--target", step.target, "--out", saved)
				if code != 0 || !strings.Contains(text, step.lists) {
					t.Fatalf("plan --target %s: exit %d\n%s%s", step.target, code, text, errText)
				}
				file, err := os.ReadFile(saved)
				if err != nil {
					t.Fatal(err)
				}
				leaks(t, "Xy7kq", map[string]string{"plan --target " + step.target + " file": string(file)})
				code, out, errOut := k.run("", "apply", "--plan", saved, "--auto-approve")
				if code != 0 || !strings.Contains(out, step.lists+": done") {
					t.Fatalf("apply --plan of plan --target %s: exit %d\n%s%s", step.target, code, out, errOut)
				}
				leaks(t, "Xy7kq", map[string]string{"apply output": out + errOut})
				if strings.Contains(out, `"pw2"`) {
					t.Errorf("apply --plan of plan --target %s touched pw2:\n%s", step.target, out)
				}
			}
			if got := tfplugintest.Received(t, k.items(), "pw"); got != tfplugintest.Digest(wo) {
				t.Errorf("pw received a value of digest %q, want that of %q", got, wo)
			}
			st, err := os.ReadFile(filepath.Join(k.dir, ".kyku", "state.json"))
			if err != nil {
				t.Fatal(err)
			}
			leaks(t, "Xy7kq", map[string]string{"state": string(st)})
		})
	}
}
