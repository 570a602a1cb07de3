package diag

import (
	"iter"
	"strings"
)

// Positions holds where the parts of one resource's (or provider's)
// settings are written, by path: a property at its key ("ingress"), a
// list element at the element ("ingress[2]"), a field or map entry at its
// key ("ingress[2].cidr", "tags.env"). A resource has a few, so they are
// one slice: a Go map costs a group of eight slots for a single entry,
// 1.5 MB of an apply's peak at 5,000 resources. The zero value is empty.
type Positions struct {
	list  []posEntry
	index map[string]int // path → entry, once there are many
}

type posEntry struct {
	path string
	pos  Pos
}

// indexFrom is the number of entries past which Set and Get use a map.
const indexFrom = 32

// Set records that path is written at pos, replacing an earlier position.
func (ps *Positions) Set(path string, pos Pos) {
	if i, ok := ps.find(path); ok {
		ps.list[i].pos = pos
		return
	}
	ps.list = append(ps.list, posEntry{path, pos})
	switch n := len(ps.list); {
	case n == indexFrom:
		ps.index = make(map[string]int, 2*n)
		for i, e := range ps.list {
			ps.index[e.path] = i
		}
	case n > indexFrom:
		ps.index[path] = n - 1
	}
}

func (ps *Positions) find(path string) (int, bool) {
	if ps.index != nil {
		i, ok := ps.index[path]
		return i, ok
	}
	for i := range ps.list {
		if ps.list[i].path == path {
			return i, true
		}
	}
	return 0, false
}

// Get returns the position of path, and whether there is one.
func (ps *Positions) Get(path string) (Pos, bool) {
	if ps == nil {
		return Pos{}, false
	}
	if i, ok := ps.find(path); ok {
		return ps.list[i].pos, true
	}
	return Pos{}, false
}

// At is the position of path, or the zero Pos when it has none.
func (ps *Positions) At(path string) Pos {
	pos, _ := ps.Get(path)
	return pos
}

// Nearest is the position of path, else of its nearest parent that has
// one ("ingress[2].cidr", then "ingress[2]", then "ingress"). An element
// [0] without a position under a parent with one is that parent written
// as one map for a list of one (a block: `rule: { port: 80 }` for
// rule[0].port): its fields are looked up under the parent ("rule.port").
func (ps *Positions) Nearest(path string) (Pos, bool) {
	path = ps.unwrapSingle(path)
	for path != "" {
		if pos, ok := ps.Get(path); ok {
			return pos, true
		}
		i := strings.LastIndexAny(path, ".[")
		if i <= 0 {
			break
		}
		path = path[:i]
	}
	return Pos{}, false
}

// unwrapSingle drops from path each [0] whose list was written as one
// map: the element has no position, the list has one.
func (ps *Positions) unwrapSingle(path string) string {
	for from := 0; ; {
		i := strings.Index(path[from:], "[0]")
		if i < 0 {
			return path
		}
		i += from
		if _, elem := ps.Get(path[:i+3]); !elem {
			if _, list := ps.Get(path[:i]); list {
				path = path[:i] + path[i+3:]
				from = i
				continue
			}
		}
		from = i + 3
	}
}

// Equal reports whether ps and o hold the same paths at the same
// positions, in whatever order they were set (and lets go-cmp compare
// values that hold Positions).
func (ps Positions) Equal(o Positions) bool {
	if len(ps.list) != len(o.list) {
		return false
	}
	for _, e := range ps.list {
		if pos, ok := o.Get(e.path); !ok || pos != e.pos {
			return false
		}
	}
	return true
}

// Len is the number of paths with a position.
func (ps *Positions) Len() int {
	if ps == nil {
		return 0
	}
	return len(ps.list)
}

// All yields every path and its position, in the order they were set.
func (ps *Positions) All() iter.Seq2[string, Pos] {
	return func(yield func(string, Pos) bool) {
		if ps == nil {
			return
		}
		for _, e := range ps.list {
			if !yield(e.path, e.pos) {
				return
			}
		}
	}
}
