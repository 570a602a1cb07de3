package graph

import (
	"sort"
	"strings"
)

// Graph is a directed graph of named nodes. The zero value is not usable;
// call New.
type Graph struct {
	names []string       // by index
	index map[string]int // name → index
	deps  [][]int        // index → what it depends on (insertion order)
	rdeps [][]int        // index → what depends on it (insertion order)
	// edges dedups the edges of nodes with many dependencies; the few
	// dependencies most nodes have are scanned instead.
	edges map[[2]int]struct{}
}

// New returns an empty graph.
func New() *Graph { return NewSized(0) }

// NewSized returns an empty graph with room for n nodes.
func NewSized(n int) *Graph {
	return &Graph{
		names: make([]string, 0, n), index: make(map[string]int, n),
		deps: make([][]int, 0, n), rdeps: make([][]int, 0, n),
	}
}

// scanLimit is the number of dependencies up to which AddEdge looks for a
// duplicate by scanning rather than in edges.
const scanLimit = 16

// AddNode adds a node called name; adding an existing node does nothing.
func (g *Graph) AddNode(name string) { g.node(name) }

func (g *Graph) node(name string) int {
	if i, ok := g.index[name]; ok {
		return i
	}
	i := len(g.names)
	g.names = append(g.names, name)
	g.index[name] = i
	g.deps = append(g.deps, nil)
	g.rdeps = append(g.rdeps, nil)
	return i
}

// AddEdge records that from depends on to, adding both nodes as needed.
// Duplicate edges are ignored.
func (g *Graph) AddEdge(from, to string) {
	f, t := g.node(from), g.node(to)
	if ds := g.deps[f]; len(ds) < scanLimit {
		for _, d := range ds {
			if d == t {
				return
			}
		}
		if len(ds) == scanLimit-1 { // about to outgrow the scan: index them
			if g.edges == nil {
				g.edges = map[[2]int]struct{}{}
			}
			for _, d := range ds {
				g.edges[[2]int{f, d}] = struct{}{}
			}
			g.edges[[2]int{f, t}] = struct{}{}
		}
	} else {
		key := [2]int{f, t}
		if _, ok := g.edges[key]; ok {
			return
		}
		g.edges[key] = struct{}{}
	}
	g.deps[f] = append(g.deps[f], t)
	g.rdeps[t] = append(g.rdeps[t], f)
}

// Len returns the number of nodes.
func (g *Graph) Len() int { return len(g.names) }

// Has reports whether the graph has a node called name.
func (g *Graph) Has(name string) bool {
	_, ok := g.index[name]
	return ok
}

// Nodes returns every node name, sorted.
func (g *Graph) Nodes() []string {
	out := append([]string(nil), g.names...)
	sort.Strings(out)
	return out
}

// Deps returns what name depends on, sorted; nil for an unknown node.
func (g *Graph) Deps(name string) []string {
	i, ok := g.index[name]
	if !ok {
		return nil
	}
	return g.sortedNames(g.deps[i])
}

// Dependents returns what depends on name, sorted; nil for an unknown node.
func (g *Graph) Dependents(name string) []string {
	i, ok := g.index[name]
	if !ok {
		return nil
	}
	return g.sortedNames(g.rdeps[i])
}

func (g *Graph) sortedNames(idx []int) []string {
	if len(idx) == 0 {
		return []string{}
	}
	out := make([]string, len(idx))
	for k, i := range idx {
		out[k] = g.names[i]
	}
	sort.Strings(out)
	return out
}

// CycleError reports a dependency cycle. Path starts and ends with the same
// node, e.g. [a b c a].
type CycleError struct {
	Path []string
}

func (e *CycleError) Error() string {
	return "dependency cycle: " + strings.Join(e.Path, " → ")
}

// Levels assigns each node its level: 0 for a node without dependencies,
// otherwise 1 + the highest level of its dependencies. It runs in O(V+E)
// (Kahn's algorithm) and returns a *CycleError when the graph is cyclic.
func (g *Graph) Levels() (map[string]int, error) {
	n := len(g.names)
	pending := make([]int, n) // unprocessed deps per node
	level := make([]int, n)
	queue := make([]int, 0, n)
	for i := range n {
		pending[i] = len(g.deps[i])
		if pending[i] == 0 {
			queue = append(queue, i)
		}
	}
	for head := 0; head < len(queue); head++ {
		i := queue[head]
		for _, d := range g.rdeps[i] {
			if level[i]+1 > level[d] {
				level[d] = level[i] + 1
			}
			pending[d]--
			if pending[d] == 0 {
				queue = append(queue, d)
			}
		}
	}
	if len(queue) != n {
		return nil, &CycleError{Path: g.FindCycle()}
	}
	out := make(map[string]int, n)
	for i, name := range g.names {
		out[name] = level[i]
	}
	return out, nil
}

// Acyclic reports whether the graph has no cycle, in O(V+E) and without
// building a path (FindCycle finds one when it has).
func (g *Graph) Acyclic() bool {
	n := len(g.names)
	pending := make([]int, n)
	queue := make([]int, 0, n)
	for i := range n {
		pending[i] = len(g.deps[i])
		if pending[i] == 0 {
			queue = append(queue, i)
		}
	}
	for head := 0; head < len(queue); head++ {
		for _, d := range g.rdeps[queue[head]] {
			if pending[d]--; pending[d] == 0 {
				queue = append(queue, d)
			}
		}
	}
	return len(queue) == n
}

// FindCycle returns one cycle as a path whose first and last elements are
// equal (e.g. [a b c a], or [a a] for a self-loop), or nil when the graph is
// acyclic. The result is deterministic: the search visits nodes and their
// dependencies in name order, and the path starts at the smallest name on
// the cycle it found.
func (g *Graph) FindCycle() []string {
	n := len(g.names)
	order := make([]int, n) // node indices sorted by name
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return g.names[order[a]] < g.names[order[b]] })
	rank := make([]int, n)
	for r, i := range order {
		rank[i] = r
	}
	sortedDeps := func(i int) []int {
		ds := append([]int(nil), g.deps[i]...)
		sort.Slice(ds, func(a, b int) bool { return rank[ds[a]] < rank[ds[b]] })
		return ds
	}

	const (
		white = iota
		grey  // on the current DFS path
		black // fully explored, on no cycle reachable from here
	)
	color := make([]int, n)
	for _, start := range order {
		if color[start] != white {
			continue
		}
		stack := []frame{{node: start, deps: sortedDeps(start)}}
		color[start] = grey
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.next == len(top.deps) {
				color[top.node] = black
				stack = stack[:len(stack)-1]
				continue
			}
			d := top.deps[top.next]
			top.next++
			switch color[d] {
			case grey:
				return g.cyclePath(stack, d, rank)
			case white:
				color[d] = grey
				stack = append(stack, frame{node: d, deps: sortedDeps(d)})
			}
		}
	}
	return nil
}

// frame is one step of FindCycle's iterative depth-first search.
type frame struct {
	node int
	deps []int // sorted by name
	next int   // next dep to visit
}

// cyclePath extracts the cycle closed by an edge from the top of stack back
// to node back, rotated to start at its smallest name.
func (g *Graph) cyclePath(stack []frame, back int, rank []int) []string {
	var cyc []int
	for k := len(stack) - 1; k >= 0; k-- {
		if stack[k].node == back {
			for _, f := range stack[k:] {
				cyc = append(cyc, f.node)
			}
			break
		}
	}
	min := 0
	for k := range cyc {
		if rank[cyc[k]] < rank[cyc[min]] {
			min = k
		}
	}
	path := make([]string, 0, len(cyc)+1)
	for k := range cyc {
		path = append(path, g.names[cyc[(min+k)%len(cyc)]])
	}
	return append(path, path[0])
}
