package diag_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/diag"
)

func TestPositions(t *testing.T) {
	var ps diag.Positions
	if _, ok := ps.Get("x"); ok || ps.Len() != 0 {
		t.Fatal("the zero Positions is not empty")
	}
	at := func(line int) diag.Pos { return diag.Pos{File: "kyku.yaml", Line: line, Col: 3} }
	ps.Set("ingress", at(1))
	ps.Set("ingress[2]", at(2))
	ps.Set("ingress", at(9)) // a second Set replaces
	if got := ps.At("ingress"); got != at(9) {
		t.Errorf("ingress at %v, want %v", got, at(9))
	}
	if got := ps.At("tags"); got != (diag.Pos{}) {
		t.Errorf("tags at %v, want the zero Pos", got)
	}
	for path, want := range map[string]diag.Pos{"ingress[2].cidr": at(2), "ingress[3]": at(9), "ingress": at(9)} {
		if got, ok := ps.Nearest(path); !ok || got != want {
			t.Errorf("Nearest(%q) = %v %v, want %v", path, got, ok, want)
		}
	}
	if _, ok := ps.Nearest("tags.env"); ok {
		t.Error("Nearest(tags.env) found a position nothing above it has")
	}
	var nilPS *diag.Positions
	if _, ok := nilPS.Nearest("a"); ok || nilPS.Len() != 0 {
		t.Error("a nil *Positions is not empty")
	}
}

// A list of one written as a single map (a block, `rule: { port: 80 }`)
// has positions for its keys under the list's ("rule.port"), none for
// its element: a path into element [0] finds them there, at any depth;
// a list written as a list keeps its own.
func TestNearestSingleMapForList(t *testing.T) {
	at := func(line int) diag.Pos { return diag.Pos{File: "kyku.yaml", Line: line, Col: 9} }
	var ps diag.Positions
	ps.Set("rule", at(1))
	ps.Set("rule.port", at(2))
	ps.Set("rule.cidr", at(3))
	ps.Set("outer", at(4))
	ps.Set("outer.inner", at(5))
	ps.Set("outer.inner.x", at(6))
	ps.Set("list", at(7))
	ps.Set("list[0]", at(8))
	ps.Set("list[0].port", at(9))
	ps.Set("tags", at(10))
	for path, want := range map[string]diag.Pos{
		"rule[0].port":        at(2),
		"rule[0].cidr":        at(3),
		"rule[0].missing":     at(1),
		"rule[0]":             at(1),
		"rule[1].port":        at(1),
		"outer[0].inner[0].x": at(6),
		"outer[0].inner.x":    at(6),
		"list[0].port":        at(9),
		"list[0].cidr":        at(8),
		"tags[0]":             at(10),
		"nowhere[0].port":     {},
	} {
		got, _ := ps.Nearest(path)
		if got != want {
			t.Errorf("Nearest(%q) = %v, want %v", path, got, want)
		}
	}
}

// Past the size where lookups use an index, every path still resolves to
// its last position, and All keeps the order of the first Set.
func TestManyPositions(t *testing.T) {
	var ps diag.Positions
	var want []string
	for i := range 100 {
		p := fmt.Sprintf("rules[%d]", i)
		want = append(want, p)
		ps.Set(p, diag.Pos{Line: i})
	}
	for i := range 100 {
		ps.Set(fmt.Sprintf("rules[%d]", i), diag.Pos{Line: 1000 + i})
	}
	var got []string
	for p, pos := range ps.All() {
		got = append(got, p)
		if wantPos, _ := ps.Get(p); pos != wantPos {
			t.Errorf("All: %s at %v, Get: %v", p, pos, wantPos)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("All (-want +got):\n%s", diff)
	}
	if ps.Len() != 100 || ps.At("rules[57]").Line != 1057 {
		t.Errorf("Len %d, rules[57] at %v", ps.Len(), ps.At("rules[57]"))
	}
}

func TestPositionsEqual(t *testing.T) {
	var a, b diag.Positions
	a.Set("x", diag.Pos{Line: 1})
	a.Set("y", diag.Pos{Line: 2})
	b.Set("y", diag.Pos{Line: 2})
	b.Set("x", diag.Pos{Line: 1})
	if !a.Equal(b) || !cmp.Equal(a, b) {
		t.Error("the same positions set in another order are not equal")
	}
	b.Set("x", diag.Pos{Line: 3})
	if a.Equal(b) || cmp.Equal(struct{ P diag.Positions }{a}, struct{ P diag.Positions }{b}) {
		t.Error("different positions are equal")
	}
}
