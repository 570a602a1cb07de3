package sim

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/providertest"
	"github.com/kyku/action/internal/value"
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
		// Drift: a rule added to web-sg by another client of the cloud.
		Drift: func(t *testing.T) {
			ctx := t.Context()
			sg, err := p.Lookup(ctx, "SecurityGroup", "kyku0001-web-sg")
			if err != nil {
				t.Fatal(err)
			}
			props := value.CopyMap(sg.Properties)
			props["ingress"] = append(props["ingress"].([]any), map[string]any{"protocol": "tcp", "port": float64(3306), "cidr": "0.0.0.0/0"})
			r := provider.Resource{Name: "web-sg", Type: "SecurityGroup", CloudName: sg.CloudName, Prefix: "kyku0001", Properties: props}
			if _, err := p.Update(ctx, sg.ID, r); err != nil {
				t.Fatal(err)
			}
		},
	})
}
