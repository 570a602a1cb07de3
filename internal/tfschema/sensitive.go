package tfschema

import (
	"github.com/zclconf/go-cty/cty"
)

// Sensitive is what a masked value shows in place of its content.
const Sensitive = "(sensitive)"

// SensitiveNames lists the top-level properties of the block that are or
// hold a sensitive attribute (one nested anywhere in a nested block or
// object makes the whole property sensitive), sorted. A renderer that
// masks by top-level property (as Kyku's own types are masked) masks
// these.
func (b *Block) SensitiveNames() []string {
	if !b.holdsSensitive() {
		return nil
	}
	return b.namesHolding(isSensitive)
}

func isSensitive(a *Attribute) bool { return a.Sensitive }

// namesHolding lists the top-level properties of the block that are or
// hold an attribute want says yes to, sorted.
func (b *Block) namesHolding(want func(*Attribute) bool) []string {
	var out []string
	for _, name := range b.Names() {
		if a, ok := b.Attributes[name]; ok && a.holds(want) {
			out = append(out, name)
		}
		if nb, ok := b.BlockTypes[name]; ok && nb.Block.holds(want) {
			out = append(out, name)
		}
	}
	return out
}

func (b *Block) holds(want func(*Attribute) bool) bool {
	for _, a := range b.Attributes {
		if a.holds(want) {
			return true
		}
	}
	for _, nb := range b.BlockTypes {
		if nb.Block.holds(want) {
			return true
		}
	}
	return false
}

func (a *Attribute) holds(want func(*Attribute) bool) bool {
	if want(a) {
		return true
	}
	if a.NestedType != nil {
		for _, na := range a.NestedType.Attributes {
			if na.holds(want) {
				return true
			}
		}
	}
	return false
}

// Mask returns a copy of props (canonical values conforming to the
// block) where the value of every sensitive attribute, at any depth, is
// Sensitive; null (absent) values stay absent. props is not changed.
func (b *Block) Mask(props map[string]any) map[string]any {
	if props == nil {
		return nil
	}
	out := make(map[string]any, len(props))
	for k, v := range props {
		switch {
		case b.Attributes[k] != nil:
			out[k] = b.Attributes[k].mask(v)
		case b.BlockTypes[k] != nil:
			nb := b.BlockTypes[k]
			out[k] = eachElement(nb.Nesting, v, func(e any) any {
				m, ok := e.(map[string]any)
				if !ok {
					return e
				}
				return nb.Block.Mask(m)
			})
		default:
			out[k] = v
		}
	}
	return out
}

func (a *Attribute) mask(v any) any {
	if v == nil {
		return nil
	}
	if a.Sensitive {
		return Sensitive
	}
	if a.NestedType == nil {
		return v
	}
	o := a.NestedType
	return eachElement(o.Nesting, v, func(e any) any {
		m, ok := e.(map[string]any)
		if !ok {
			return e
		}
		out := make(map[string]any, len(m))
		for k, ev := range m {
			if na := o.Attributes[k]; na != nil {
				out[k] = na.mask(ev)
			} else {
				out[k] = ev
			}
		}
		return out
	})
}

// eachElement applies f to the one value (single, group) or to each
// element of a list, set or map of values.
func eachElement(n Nesting, v any, f func(any) any) any {
	switch n {
	case NestingList, NestingSet:
		l, ok := v.([]any)
		if !ok {
			return f(v)
		}
		out := make([]any, len(l))
		for i, e := range l {
			out[i] = f(e)
		}
		return out
	case NestingMap:
		m, ok := v.(map[string]any)
		if !ok {
			return v
		}
		out := make(map[string]any, len(m))
		for k, e := range m {
			out[k] = f(e)
		}
		return out
	}
	return f(v)
}

// SensitivePaths lists the paths of v (a value of the block's type) that
// hold a sensitive attribute's non-null value, in a stable order: what a
// renderer of a cty value hides.
func (b *Block) SensitivePaths(v cty.Value) []cty.Path {
	if !b.holdsSensitive() {
		return nil
	}
	return b.pathsOf(v, isSensitive)
}

// pathsOf lists the paths of v that hold the non-null value of an
// attribute want says yes to, in a stable order.
func (b *Block) pathsOf(v cty.Value, want func(*Attribute) bool) []cty.Path {
	var out []cty.Path
	b.collect(v, nil, want, &out)
	return out
}

func (b *Block) collect(v cty.Value, path cty.Path, want func(*Attribute) bool, out *[]cty.Path) {
	if v.IsNull() || !v.IsKnown() {
		return
	}
	for _, name := range b.attrOrder() {
		b.Attributes[name].collect(v.GetAttr(name), path.GetAttr(name), want, out)
	}
	for _, name := range b.blockOrder() {
		nb := b.BlockTypes[name]
		bv := v.GetAttr(name)
		forEach(nb.Nesting, bv, path.GetAttr(name), func(e cty.Value, p cty.Path) {
			nb.Block.collect(e, p, want, out)
		})
	}
}

func (a *Attribute) collect(v cty.Value, path cty.Path, want func(*Attribute) bool, out *[]cty.Path) {
	if v.IsNull() {
		return
	}
	if want(a) {
		*out = append(*out, path.Copy())
		return
	}
	if a.NestedType == nil || !v.IsKnown() {
		return
	}
	o := a.NestedType
	forEach(o.Nesting, v, path, func(e cty.Value, p cty.Path) {
		if e.IsNull() || !e.IsKnown() {
			return
		}
		for _, name := range o.attrOrder() {
			o.Attributes[name].collect(e.GetAttr(name), p.GetAttr(name), want, out)
		}
	})
}

func forEach(n Nesting, v cty.Value, path cty.Path, f func(cty.Value, cty.Path)) {
	if v.IsNull() || !v.IsKnown() {
		return
	}
	switch n {
	case NestingList, NestingSet, NestingMap:
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			f(e, path.Index(k))
		}
	default:
		f(v, path)
	}
}
