package tfplugin

import (
	"bytes"

	"github.com/zclconf/go-cty/cty"
)

// PlanKept reports whether got, a provider's new state in msgpack,
// certainly keeps every known value of planned, its planned state, both
// of type ty: each is unknown in planned, or the same value in both
// (the same bytes, or objects, lists and maps whose parts are). It reads
// the bytes only, without building either value. False means unsure
// (values the same in other bytes, a set, a difference, anything
// malformed): decode both and compare them.
func PlanKept(planned, got []byte, ty cty.Type) bool {
	p, g := mpReader{b: planned}, mpReader{b: got}
	return kept(&p, &g, ty)
}

func kept(p, g *mpReader, ty cty.Type) bool {
	if p.pos >= len(p.b) || g.pos >= len(g.b) {
		return false
	}
	if isExt(p.b[p.pos]) { // unknown in the plan: anything goes
		return p.skip() == nil && g.skip() == nil
	}
	ps, gs := p.pos, g.pos
	if p.skip() != nil || g.skip() != nil {
		return false
	}
	pv, gv := p.b[ps:p.pos], g.b[gs:g.pos]
	if bytes.Equal(pv, gv) {
		return true
	}
	switch {
	case ty.IsObjectType():
		return keptEntries(pv, gv, func(k []byte) (cty.Type, bool) {
			aty, ok := ty.AttributeTypes()[string(k)]
			return aty, ok
		})
	case ty.IsMapType():
		return keptEntries(pv, gv, func([]byte) (cty.Type, bool) { return ty.ElementType(), true })
	case ty.IsListType():
		pr, gr := mpReader{b: pv}, mpReader{b: gv}
		if !isArray(pv[0]) || !isArray(gv[0]) {
			return false
		}
		n, err1 := pr.arrayLen()
		m, err2 := gr.arrayLen()
		if err1 != nil || err2 != nil || n != m {
			return false
		}
		for range n {
			if !kept(&pr, &gr, ty.ElementType()) {
				return false
			}
		}
		return true
	}
	return false // a primitive, a set, a tuple, a dynamic value: their bytes differ
}

// keptEntries compares two msgpack maps (an object's attributes or a
// map's elements) entry by entry, matched by key whatever their order
// (a provider writes a map in its own order): each key once in each, of
// the type typeOf gives it.
func keptEntries(pv, gv []byte, typeOf func([]byte) (cty.Type, bool)) bool {
	if !isMap(pv[0]) || !isMap(gv[0]) {
		return false
	}
	pr, gr := mpReader{b: pv}, mpReader{b: gv}
	n, err1 := pr.mapLen()
	m, err2 := gr.mapLen()
	if err1 != nil || err2 != nil || n != m {
		return false
	}
	type entry struct {
		key, value []byte
		used       bool
	}
	var arr [32]entry
	planned := arr[:0]
	for range n {
		k, err := pr.rawStr()
		start := pr.pos
		if err != nil || pr.skip() != nil {
			return false
		}
		planned = append(planned, entry{key: k, value: pr.b[start:pr.pos]})
	}
	for range m {
		k, err := gr.rawStr()
		start := gr.pos
		if err != nil || gr.skip() != nil {
			return false
		}
		i := -1
		for j := range planned {
			if bytes.Equal(planned[j].key, k) {
				i = j
				break
			}
		}
		ty, ok := typeOf(k)
		if i < 0 || planned[i].used || !ok {
			return false
		}
		planned[i].used = true
		if !PlanKept(planned[i].value, gr.b[start:gr.pos], ty) {
			return false
		}
	}
	return true
}

func isArray(c byte) bool { return c&0xf0 == 0x90 || c == 0xdc || c == 0xdd }

func isMap(c byte) bool { return c&0xf0 == 0x80 || c == 0xde || c == 0xdf }

// skip reads past one msgpack value, whatever it is.
func (d *mpReader) skip() error {
	for n := 1; n > 0; n-- {
		c, err := d.peek()
		if err != nil {
			return err
		}
		d.pos++
		var size, items int // bytes of the value; items that follow it
		switch {
		case c <= 0x7f, c >= 0xe0, c == 0xc0, c == 0xc2, c == 0xc3:
		case c&0xf0 == 0x80:
			items = 2 * int(c&0x0f)
		case c&0xf0 == 0x90:
			items = int(c & 0x0f)
		case c&0xe0 == 0xa0:
			size = int(c & 0x1f)
		case c == 0xc4, c == 0xd9: // bin 8, str 8
			size, err = d.length(1)
		case c == 0xc5, c == 0xda:
			size, err = d.length(2)
		case c == 0xc6, c == 0xdb:
			size, err = d.length(4)
		case c == 0xc7, c == 0xc8, c == 0xc9: // ext 8, 16, 32: the type byte, then the body
			size, err = d.length(1 << (c - 0xc7))
			size++
		case c == 0xca:
			size = 4
		case c == 0xcb:
			size = 8
		case c >= 0xcc && c <= 0xcf:
			size = 1 << (c - 0xcc)
		case c >= 0xd0 && c <= 0xd3:
			size = 1 << (c - 0xd0)
		case c >= 0xd4 && c <= 0xd8: // fixext 1 to 16, after its type byte
			size = 1 + 1<<(c-0xd4)
		case c == 0xdc:
			items, err = d.items(2)
		case c == 0xdd:
			items, err = d.items(4)
		case c == 0xde:
			items, err = d.items(2)
			items *= 2
		case c == 0xdf:
			items, err = d.items(4)
			items *= 2
		default:
			return errSlowPath // 0xc1, never used
		}
		if err != nil {
			return err
		}
		if _, err := d.next(size); err != nil {
			return err
		}
		n += items
	}
	return nil
}
