package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// TestProviderProcessesReported: every Terraform provider process a
// command starts is reported to the caller (the binary gives up its GC
// budget then), and KYKU_PROVIDER_RENEW is read: a bad value is refused
// with its name before anything runs.
func TestProviderProcessesReported(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a provider")
	}
	k := newKyku(t, "")
	cloud := filepath.Join(k.dir, "items")
	if err := os.MkdirAll(cloud, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(k.dir, "kyku.yaml"), []byte(`providers:
  fwtest: { source: kyku/fwtest, config: { dir: "`+cloud+`" } }
resources:
  a: { type: fwtest_item, properties: { name: a } }
`), 0o644); err != nil {
		t.Fatal(err)
	}
	k.env["KYKU_PLUGIN_MIRROR"] = tfplugintest.Mirror(t, t.TempDir(), tfplugintest.Framework)

	var mu sync.Mutex
	var started []int
	k.providerStarted = func(pid int) {
		mu.Lock()
		defer mu.Unlock()
		started = append(started, pid)
	}
	run := func(args ...string) (int, string) {
		t.Helper()
		code, out, errOut := k.run("", args...)
		return code, out + errOut
	}
	if code, out := run("init"); code != 0 {
		t.Fatalf("init: exit %d\n%s", code, out)
	}
	k.env["KYKU_PROVIDER_RENEW"] = "3"
	if code, out := run("apply", "--auto-approve"); code != 0 {
		t.Fatalf("apply: exit %d\n%s", code, out)
	}
	mu.Lock()
	n, first := len(started), 0
	if n > 0 {
		first = started[0]
	}
	mu.Unlock()
	if n == 0 || first <= 0 {
		t.Fatalf("provider processes reported: %v, want the one the apply started", started)
	}

	k.env["KYKU_PROVIDER_RENEW"] = "1"
	code, out := run("plan")
	if code != 1 || !strings.Contains(out, `KYKU_PROVIDER_RENEW="1"`) {
		t.Errorf("plan with KYKU_PROVIDER_RENEW=1: exit %d\n%s", code, out)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(started) != n {
		t.Errorf("a provider started although its setting was refused")
	}
}
