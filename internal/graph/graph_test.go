package graph

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

// build makes a graph from "from>to" edges and bare node names.
func build(items ...string) *Graph {
	g := New()
	for _, it := range items {
		var from, to string
		if n, _ := fmt.Sscanf(replaceArrow(it), "%s %s", &from, &to); n == 2 {
			g.AddEdge(from, to)
		} else {
			g.AddNode(it)
		}
	}
	return g
}

func replaceArrow(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '>' {
			return s[:i] + " " + s[i+1:]
		}
	}
	return s
}

func TestLevels(t *testing.T) {
	tests := []struct {
		name  string
		graph *Graph
		want  map[string]int
	}{
		{"empty", New(), map[string]int{}},
		{"isolated", build("a", "b"), map[string]int{"a": 0, "b": 0}},
		{"chain", build("c>b", "b>a"), map[string]int{"a": 0, "b": 1, "c": 2}},
		{"diamond", build("top>left", "top>right", "left>base", "right>base"),
			map[string]int{"base": 0, "left": 1, "right": 1, "top": 2}},
		// level is 1 + the HIGHEST dep level, not the first one reached
		{"uneven", build("x>a", "x>c", "c>b", "b>a"), map[string]int{"a": 0, "b": 1, "c": 2, "x": 3}},
		{"duplicate edges", build("b>a", "b>a"), map[string]int{"a": 0, "b": 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.graph.Levels()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("levels (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCycles(t *testing.T) {
	tests := []struct {
		name  string
		graph *Graph
		want  []string
	}{
		{"acyclic", build("b>a", "c>b", "c>a"), nil},
		{"self-loop", build("b>a", "a>a"), []string{"a", "a"}},
		{"two", build("a>b", "b>a"), []string{"a", "b", "a"}},
		{"longer", build("x>b", "b>zed", "zed>c", "c>b", "start>x"), []string{"b", "zed", "c", "b"}},
		// entered at "m" from "a", but reported from the smallest name on the cycle
		{"rotated to smallest", build("a>m", "m>z", "z>b", "b>m"), []string{"b", "m", "z", "b"}},
		{"tail into cycle", build("a>b", "b>c", "c>d", "d>b"), []string{"b", "c", "d", "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.graph.FindCycle()); diff != "" {
				t.Errorf("FindCycle (-want +got):\n%s", diff)
			}
			_, err := tt.graph.Levels()
			var ce *CycleError
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Levels: unexpected error %v", err)
				}
				return
			}
			if !errors.As(err, &ce) {
				t.Fatalf("Levels error = %v, want *CycleError", err)
			}
			if diff := cmp.Diff(tt.want, ce.Path); diff != "" {
				t.Errorf("CycleError.Path (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCycleErrorMessage(t *testing.T) {
	err := &CycleError{Path: []string{"a", "b", "c", "a"}}
	if got, want := err.Error(), "dependency cycle: a → b → c → a"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// The same graph built in any insertion order gives the same answers.
func TestDeterminism(t *testing.T) {
	edges := []string{"web>sg", "web>vpc", "sg>vpc", "db>vpc", "lb>tg", "tg>web", "loop1>loop2", "loop2>loop1"}
	var first *Graph
	for i := range edges {
		rotated := append(append([]string(nil), edges[i:]...), edges[:i]...)
		g := build(rotated...)
		if first == nil {
			first = g
			continue
		}
		if diff := cmp.Diff(first.FindCycle(), g.FindCycle()); diff != "" {
			t.Errorf("rotation %d: cycle differs:\n%s", i, diff)
		}
		if diff := cmp.Diff(first.DOT(nil), g.DOT(nil)); diff != "" {
			t.Errorf("rotation %d: DOT differs:\n%s", i, diff)
		}
		if diff := cmp.Diff(first.Nodes(), g.Nodes()); diff != "" {
			t.Errorf("rotation %d: nodes differ:\n%s", i, diff)
		}
	}
}

func TestAccessors(t *testing.T) {
	g := build("web>vpc", "web>sg", "sg>vpc", "web>sg", "lone")
	if got := g.Len(); got != 4 {
		t.Errorf("Len = %d, want 4", got)
	}
	checks := []struct {
		name string
		got  []string
		want []string
	}{
		{"Nodes", g.Nodes(), []string{"lone", "sg", "vpc", "web"}},
		{"Deps(web)", g.Deps("web"), []string{"sg", "vpc"}},
		{"Deps(vpc)", g.Deps("vpc"), []string{}},
		{"Dependents(vpc)", g.Dependents("vpc"), []string{"sg", "web"}},
		{"Deps(unknown)", g.Deps("nope"), nil},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			if diff := cmp.Diff(c.want, c.got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestRenderGolden(t *testing.T) {
	g := build("web>main-vpc", "web>web-sg", "web-sg>main-vpc", "db>main-vpc", "lb>tg", "tg>web", `odd"name>main-vpc`)
	levels, err := g.Levels()
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]string{"web": "Vm", "main-vpc": "Vpc"}
	label := func(n string) string {
		if typ, ok := types[n]; ok {
			return n + ": " + typ
		}
		return n
	}
	tests := []struct{ file, got string }{
		{"graph.dot", g.DOT(levels)},
		{"graph.mmd", g.Mermaid(levels)},
		{"graph-labelled.dot", g.DOTWith(levels, label)},
		{"graph-labelled.mmd", g.MermaidWith(levels, label)},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			golden(t, tt.file, tt.got)
		})
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run with -update): %v", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}

// layered builds n nodes in 4 levels; each node depends on up to 3 nodes of
// the level below.
func layered(n int) *Graph {
	g := New()
	per := n / 4
	name := func(l, i int) string { return fmt.Sprintf("r-%d-%05d", l, i) }
	for i := range per {
		g.AddNode(name(0, i))
	}
	for l := 1; l < 4; l++ {
		for i := range per {
			for k := range 3 {
				g.AddEdge(name(l, i), name(l-1, (i*7+k*13)%per))
			}
		}
	}
	return g
}

func TestLayered(t *testing.T) {
	levels, err := layered(1000).Levels()
	if err != nil {
		t.Fatal(err)
	}
	if got := levels["r-3-00010"]; got != 3 {
		t.Errorf("level of r-3-00010 = %d, want 3", got)
	}
}

func BenchmarkLevels10k(b *testing.B) {
	g := layered(10000)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := g.Levels(); err != nil {
			b.Fatal(err)
		}
	}
}

// Duplicate edges are ignored however many dependencies a node has (a
// few are scanned, many are indexed).
func TestDuplicateEdgesOfWideNodes(t *testing.T) {
	g := New()
	for round := 0; round < 3; round++ {
		for i := 0; i < 40; i++ {
			g.AddEdge("wide", fmt.Sprintf("d%02d", i))
		}
	}
	if got := len(g.Deps("wide")); got != 40 {
		t.Errorf("wide has %d dependencies, want 40", got)
	}
	if got := len(g.Dependents("d07")); got != 1 {
		t.Errorf("d07 has %d dependents, want 1", got)
	}
}

func TestAcyclic(t *testing.T) {
	if !build("b>a", "c>b", "c>a", "d").Acyclic() {
		t.Error("a DAG reported cyclic")
	}
	for _, g := range []*Graph{build("a>b", "b>a"), build("a>a"), build("x>y", "y>z", "z>y")} {
		if g.Acyclic() || g.FindCycle() == nil {
			t.Errorf("cycle not seen: Acyclic %v, FindCycle %v", g.Acyclic(), g.FindCycle())
		}
	}
}
