package tfplugin_test

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/kyku/action/internal/tfschema"
)

// jsonOf is a state value as state stores it.
func jsonOf(v cty.Value, b *tfschema.Block) ([]byte, error) {
	return ctyjson.Marshal(v, b.ImpliedType())
}

func goroutines() int { return runtime.NumGoroutine() }

// checkGoroutines fails the test when more goroutines run than before,
// once those ending on their own have had a moment to.
func checkGoroutines(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			n := runtime.Stack(buf, true)
			t.Errorf("%d goroutines left, %d before:\n%s", runtime.NumGoroutine(), before, leaked(string(buf[:n])))
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// leaked drops the test framework's own goroutines from a dump.
func leaked(dump string) string {
	var out []string
	for _, g := range strings.Split(dump, "\n\n") {
		if strings.Contains(g, "testing.(*T).Run") || strings.Contains(g, "testing.tRunner") && strings.Contains(g, "checkGoroutines") {
			continue
		}
		out = append(out, g)
	}
	return strings.Join(out, "\n\n")
}
