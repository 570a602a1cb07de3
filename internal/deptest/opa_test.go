package deptest

import (
	"os/exec"
	"strings"
	"testing"
)

// TestOnlyThePolicyPackageImportsOPA: the Open Policy Agent library is
// package policy's; everything else reaches it through that package (the
// review rules, and through them the front doors), and no domain package
// links it.
func TestOnlyThePolicyPackageImportsOPA(t *testing.T) {
	const mod = "github.com/kyku/action/"
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", mod+"...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list %s...: %v\n%s", mod, err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		for _, imp := range f[1:] {
			if strings.HasPrefix(imp, "github.com/open-policy-agent/") && f[0] != mod+"internal/policy" {
				t.Errorf("%s imports %s: only internal/policy evaluates policies", f[0], imp)
			}
		}
	}
	for _, name := range []string{"config", "plan", "engine", "render", "statemgr", "provider", "github", "command"} {
		for _, d := range deps(t, mod+"internal/"+name) {
			if strings.HasPrefix(d, "github.com/open-policy-agent/") {
				t.Errorf("internal/%s links %s", name, d)
				break
			}
		}
	}
}
