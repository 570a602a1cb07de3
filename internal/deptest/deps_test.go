package deptest

import (
	"os/exec"
	"strings"
	"testing"
)

// deps lists the packages pkg links, as go list -deps sees them.
func deps(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", pkg).CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
	}
	return strings.Fields(string(out))
}

func TestDependencyRules(t *testing.T) {
	const mod = "github.com/kyku/action/"
	domain := []string{"diag", "value", "schema", "tfschema", "config", "graph", "state", "plan", "diff", "engine", "statemgr", "provider", "progress", "render", "command"}
	for _, name := range domain {
		pkg := mod + "internal/" + name
		t.Run(name, func(t *testing.T) {
			for _, d := range deps(t, pkg) {
				switch {
				case strings.Contains(d, "go-github"), strings.Contains(d, "aws-sdk-go"), strings.Contains(d, "hcloud-go"), strings.Contains(d, "ghinstallation"):
					t.Errorf("%s links %s: domain packages must not import adapters", pkg, d)
				case strings.HasPrefix(d, mod+"internal/statemgr/"), strings.HasPrefix(d, mod+"internal/provider/"),
					strings.HasPrefix(d, mod+"internal/github"), strings.HasPrefix(d, mod+"internal/cli"):
					t.Errorf("%s links the adapter %s", pkg, d)
				}
			}
		})
	}
	// The public Go API carries the engine, its providers and backends,
	// and none of the front doors or their GitHub dependencies.
	t.Run("kyku", func(t *testing.T) {
		for _, d := range deps(t, mod+"kyku") {
			switch {
			case strings.Contains(d, "go-github"), strings.Contains(d, "ghinstallation"), strings.Contains(d, "go-githubactions"):
				t.Errorf("the public package links %s", d)
			case strings.HasPrefix(d, mod+"internal/github"), strings.HasPrefix(d, mod+"internal/review"),
				strings.HasPrefix(d, mod+"internal/action"), strings.HasPrefix(d, mod+"internal/bot"),
				strings.HasPrefix(d, mod+"internal/cli"), strings.HasPrefix(d, mod+"internal/command"):
				t.Errorf("the public package links the front-door package %s", d)
			}
		}
	})
	t.Run("cmd/action", func(t *testing.T) {
		for _, d := range deps(t, mod+"cmd/action") {
			if strings.Contains(d, "ghinstallation") {
				t.Errorf("cmd/action links %s: the Action authenticates with the workflow token, not as the App", d)
			}
		}
	})
}
