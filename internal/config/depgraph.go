package config

import (
	"github.com/kyku/action/internal/graph"
	"github.com/kyku/action/internal/value"
	"sync"
)

// BuildGraph returns the dependency graph of cfg: one node per resource and
// an edge r → d for every dependsOn entry d and every resource d referenced
// anywhere in r's properties (nested lists and maps included). Inject
// auto-subnets first so that they are resources too. A reference to a name
// that is not a resource still adds a node for it.
//
// A resource placed in a Vpc's network (a Vm, Database or LoadBalancer whose
// network references the Vpc) also depends on that Vpc's auto-subnets:
// clouds place it in them (an RDS subnet group, a load balancer's public
// subnets), so they must exist first.
func BuildGraph(cfg *Config) *graph.Graph {
	g := graph.NewSized(len(cfg.Resources))
	auto := map[string][]string{} // vpc → its injected subnets
	for _, r := range cfg.Resources {
		if r.AutoFrom != "" {
			auto[r.AutoFrom] = append(auto[r.AutoFrom], r.Name)
		}
	}
	for _, r := range cfg.Resources {
		g.AddNode(r.Name)
		for _, d := range r.DependsOn {
			g.AddEdge(r.Name, d)
		}
		for _, ref := range value.Refs(r.Properties) {
			g.AddEdge(r.Name, ref.Resource)
		}
		if placed()[r.Type] {
			if ref, ok := value.WholeRef(r.Properties["network"]); ok {
				for _, sub := range auto[ref.Resource] {
					g.AddEdge(r.Name, sub)
				}
			}
		}
	}
	return g
}

// placed are the types a cloud places inside their network's subnets.
var placed = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"Vm": true, "Database": true, "LoadBalancer": true}
})
