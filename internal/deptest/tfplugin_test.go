package deptest

import (
	"os/exec"
	"strings"
	"testing"
)

// TestPluginLibrariesStayInTheirPackages: the OpenPGP library is package
// tfinstall/pgpverify's (apart from tfinstall, so that the kyku executable
// does not link it: TestKykuLinksNoEngineParts); no package links go-plugin or gRPC (package tfplugin
// speaks their protocols itself: gRPC's tracing would cost every Kyku
// command 25 MB, see TestNoHeavyInitLinked); and the schema and value
// packages the engine uses link neither: what plans a provider resource
// stays a pure domain package.
func TestPluginLibrariesStayInTheirPackages(t *testing.T) {
	const mod = "github.com/kyku/action/"
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", mod+"...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list %s...: %v\n%s", mod, err, out)
	}
	owners := map[string]string{
		"github.com/hashicorp/go-plugin":  "(none)",
		"google.golang.org/grpc":          "(none)",
		"github.com/ProtonMail/go-crypto": mod + "internal/tfinstall/pgpverify",
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		for _, imp := range f[1:] {
			for lib, owner := range owners {
				if strings.HasPrefix(imp, lib) && f[0] != owner {
					t.Errorf("%s imports %s: only %s does", f[0], imp, owner)
				}
			}
		}
	}
	for _, name := range []string{"tfschema", "value"} {
		for _, d := range deps(t, mod+"internal/"+name) {
			if strings.HasPrefix(d, "google.golang.org/grpc") || strings.HasPrefix(d, "github.com/hashicorp/go-plugin") {
				t.Errorf("internal/%s links %s", name, d)
			}
		}
	}
}
