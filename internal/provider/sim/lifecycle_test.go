package sim

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/provider/providertest"
)

// TestEngineLifecycleOnSim drives the quick start through the engine on
// the sim, the same story the aws and hetzner providers are held to.
func TestEngineLifecycleOnSim(t *testing.T) {
	dir := t.TempDir()
	p := newSim(t, Options{Dir: dir})
	objects := func() []string {
		files, err := filepath.Glob(filepath.Join(dir, "*", "*.json"))
		if err != nil {
			t.Fatal(err)
		}
		return files
	}
	providertest.Lifecycle(t, providertest.Stack{
		Provider: p, Config: providertest.Example(t, "quickstart"), Created: 12,
		Engine:    engine.Options{RetryBase: time.Millisecond, DestroyBase: time.Millisecond, VerifyInterval: time.Millisecond},
		Inventory: objects,
		// Drift: a rule added to web-sg's file, as the package doc says.
		Drift: func(t *testing.T) {
			for _, f := range objects() {
				data, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				var o map[string]any
				if err := json.Unmarshal(data, &o); err != nil {
					t.Fatal(err)
				}
				if o["type"] != "SecurityGroup" || !strings.HasSuffix(o["cloudName"].(string), "-web-sg") {
					continue
				}
				props := o["properties"].(map[string]any)
				ingress, _ := props["ingress"].([]any)
				props["ingress"] = append(ingress, map[string]any{"protocol": "tcp", "port": float64(3306), "cidr": "0.0.0.0/0"})
				if data, err = json.MarshalIndent(o, "", "  "); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(f, data, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			t.Fatal("no web-sg in the sim")
		},
	})
}
