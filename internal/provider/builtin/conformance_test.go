package builtin_test

import (
	"testing"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/builtin"
	"github.com/kyku/action/internal/provider/providertest"
)

// The shared conformance suite against the built-in provider: it keeps
// the contract the engine drives every provider by.
func TestConformance(t *testing.T) {
	providertest.Run(t, func(t *testing.T) provider.Provider { return builtin.New(ids()) }, providertest.Fixtures{
		Types: []string{"terraform_data"},
		Resource: func(typ, name, cloudName string, _ providertest.Deps) provider.Resource {
			return provider.Resource{Name: name, Type: typ, CloudName: cloudName, Prefix: "kykutest",
				Properties: map[string]any{"input": "one"}}
		},
		Mutate: func(r provider.Resource) (provider.Resource, string) {
			r.Properties = map[string]any{"input": "two"}
			return r, "input"
		},
		InState: true,
	})
}
