package tfprovider_test

import (
	"maps"
	"testing"
	"time"

	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/providertest"
	"github.com/kyku/action/internal/provider/tfprovider"
	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// The shared conformance suite, against each test provider (protocol 6
// and 5) on a test cloud of its own: a Terraform provider keeps the same
// contract as Kyku's own.
func TestConformance(t *testing.T) {
	for _, tp := range testProviders {
		t.Run(tp.Type, func(t *testing.T) {
			cloud, exe := t.TempDir(), tfplugintest.Build(t, tp)
			providertest.Run(t, func(t *testing.T) provider.Provider {
				p := tfprovider.New(tfprovider.Config{
					Name: tp.Type, Source: tp.Source(), Executable: exe, Settings: map[string]any{"dir": cloud},
					PropPos: &diag.Positions{}, ClientVersion: "1.12.6", StopGrace: 5 * time.Second,
				})
				t.Cleanup(func() { p.Close() })
				return p
			}, itemFixtures(tp.Type))
		})
	}
}

// itemFixtures are the test provider's items: a name (which forces a
// replace) and a value (changed in place), read back by the data source
// of the same name.
func itemFixtures(tp string) providertest.Fixtures {
	item := tp + "_item"
	return providertest.Fixtures{
		Types: []string{item},
		Resource: func(typ, name, cloudName string, _ providertest.Deps) provider.Resource {
			return provider.Resource{Name: name, Type: typ, CloudName: cloudName, Prefix: "kykutest",
				Properties: map[string]any{"name": cloudName, "value": "one"}}
		},
		Mutate: func(r provider.Resource) (provider.Resource, string) {
			r.Properties = maps.Clone(r.Properties)
			r.Properties["value"] = "two"
			return r, "value"
		},
		Data: func(r provider.Resource, _ provider.Object) (string, map[string]any) {
			return item, map[string]any{"name": r.Properties["name"]}
		},
	}
}
