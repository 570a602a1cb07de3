package config

import (
	"github.com/kyku/action/internal/graph"
	"github.com/kyku/action/internal/value"
)

// BuildGraph returns the dependency graph of cfg: one node per resource and
// an edge r → d for every dependsOn entry d and every resource d referenced
// anywhere in r's properties (nested lists and maps included). Inject
// auto-subnets first so that they are resources too. A reference to a name
// that is not a resource still adds a node for it.
func BuildGraph(cfg *Config) *graph.Graph {
	g := graph.New()
	for _, r := range cfg.Resources {
		g.AddNode(r.Name)
		for _, d := range r.DependsOn {
			g.AddEdge(r.Name, d)
		}
		for _, ref := range value.Refs(r.Properties) {
			g.AddEdge(r.Name, ref.Resource)
		}
	}
	return g
}
