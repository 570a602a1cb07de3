package graph

import (
	"fmt"
	"sort"
	"strings"
)

// LabelFunc returns the text shown for a node in place of its bare name
// (e.g. "web: Vm"). "(level N)" is always appended on a second line.
type LabelFunc func(name string) string

// DOT renders the graph in Graphviz DOT: each node labelled with its name
// and "(level N)", nodes of one level grouped with {rank=same; …}, edges
// from dependent to dependency, level 0 at the top. The output is
// deterministic. Nodes missing from levels are shown without a level.
func (g *Graph) DOT(levels map[string]int) string { return g.DOTWith(levels, nil) }

// DOTWith is DOT with a custom node label (nil: the name).
func (g *Graph) DOTWith(levels map[string]int, label LabelFunc) string {
	nodes := g.byLevel(levels)
	var b strings.Builder
	b.WriteString("digraph kyku {\n  rankdir=BT;\n  node [shape=box];\n")
	for _, n := range nodes {
		fmt.Fprintf(&b, "  %s [label=%s];\n", dotQuote(n), dotQuote(nodeLabel(n, levels, label, "\n", nil)))
	}
	for _, group := range groupByLevel(nodes, levels) {
		b.WriteString("  {rank=same;")
		for _, n := range group {
			b.WriteString(" " + dotQuote(n) + ";")
		}
		b.WriteString("}\n")
	}
	for _, e := range g.sortedEdges() {
		fmt.Fprintf(&b, "  %s -> %s;\n", dotQuote(e[0]), dotQuote(e[1]))
	}
	b.WriteString("}\n")
	return b.String()
}

// Mermaid renders the graph as a Mermaid flowchart: each node labelled
// with its name and "(level N)", edges from dependent to dependency. Node
// IDs are n0, n1, … in (level, name) order, so any name is safe.
func (g *Graph) Mermaid(levels map[string]int) string { return g.MermaidWith(levels, nil) }

// MermaidWith is Mermaid with a custom node label (nil: the name).
func (g *Graph) MermaidWith(levels map[string]int, label LabelFunc) string {
	nodes := g.byLevel(levels)
	id := make(map[string]string, len(nodes))
	var b strings.Builder
	b.WriteString("flowchart BT\n")
	for k, n := range nodes {
		id[n] = fmt.Sprintf("n%d", k)
		fmt.Fprintf(&b, "  %s[\"%s\"]\n", id[n], nodeLabel(n, levels, label, "<br/>", mermaidEscape))
	}
	for _, e := range g.sortedEdges() {
		fmt.Fprintf(&b, "  %s --> %s\n", id[e[0]], id[e[1]])
	}
	return b.String()
}

func nodeLabel(name string, levels map[string]int, label LabelFunc, br string, escape func(string) string) string {
	text := name
	if label != nil {
		text = label(name)
	}
	if escape != nil {
		text = escape(text)
	}
	if l, ok := levels[name]; ok {
		text += fmt.Sprintf("%s(level %d)", br, l)
	}
	return text
}

// byLevel returns the nodes sorted by level (unknown last), then name.
func (g *Graph) byLevel(levels map[string]int) []string {
	nodes := g.Nodes()
	lv := func(n string) int {
		if l, ok := levels[n]; ok {
			return l
		}
		return int(^uint(0) >> 1)
	}
	sort.SliceStable(nodes, func(a, b int) bool { return lv(nodes[a]) < lv(nodes[b]) })
	return nodes
}

// groupByLevel splits nodes (sorted by level) into runs of equal level,
// leaving out nodes without a level.
func groupByLevel(nodes []string, levels map[string]int) [][]string {
	var groups [][]string
	last := -1
	for _, n := range nodes {
		l, ok := levels[n]
		if !ok {
			continue
		}
		if len(groups) == 0 || l != last {
			groups = append(groups, nil)
			last = l
		}
		groups[len(groups)-1] = append(groups[len(groups)-1], n)
	}
	return groups
}

func (g *Graph) sortedEdges() [][2]string {
	var out [][2]string
	for f, ds := range g.deps {
		for _, t := range ds {
			out = append(out, [2]string{g.names[f], g.names[t]})
		}
	}
	sort.Slice(out, func(a, b int) bool {
		if out[a][0] != out[b][0] {
			return out[a][0] < out[b][0]
		}
		return out[a][1] < out[b][1]
	})
	return out
}

func dotQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

func mermaidEscape(s string) string {
	return strings.NewReplacer(`"`, "#quot;", "<", "#lt;", ">", "#gt;").Replace(s)
}
