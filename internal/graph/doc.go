// Package graph owns Kyku's dependency graph: a directed graph of named nodes
// where an edge a → b means "a depends on b". It finds cycles (with their
// path), assigns levels by topological sort in O(V+E), and renders the graph
// as Graphviz DOT or Mermaid for `kyku graph`.
//
// It knows nothing about resources or configuration; package config builds
// a Graph from a Config. Every result is deterministic (sorted by name).
//
// Concurrency: a Graph is not safe for concurrent mutation. Once built, its
// read-only methods (Nodes, Deps, Dependents, FindCycle, Levels, DOT,
// Mermaid) may be called from several goroutines at once.
package graph
