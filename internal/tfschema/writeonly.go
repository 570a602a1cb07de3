package tfschema

import (
	"github.com/zclconf/go-cty/cty"

	"github.com/kyku/action/internal/value"
)

// Write-only attributes (the protocol's write_only, Terraform 1.11): the
// configuration's value is sent to the provider, and is null in every
// value the provider answers with (planned state, new state, read state)
// and in everything Kyku keeps. Only managed resources have them.

// WriteOnlyNames lists the top-level properties of the block that are or
// hold a write-only attribute, sorted: what Kyku leaves out of what it
// keeps of a configuration (state, a saved plan).
func (b *Block) WriteOnlyNames() []string {
	if !b.holdsWriteOnly() {
		return nil
	}
	return b.namesHolding(isWriteOnly)
}

func isWriteOnly(a *Attribute) bool { return a.WriteOnly }

// WriteOnlyPaths lists the paths of v (a value of the block's type) that
// hold a write-only attribute's non-null value, in a stable order: in a
// provider's answer, each is a fault of the provider.
func (b *Block) WriteOnlyPaths(v cty.Value) []cty.Path {
	if !b.holdsWriteOnly() {
		return nil
	}
	return b.pathsOf(v, isWriteOnly)
}

// AppendSecrets appends to out the texts of every known value of v that
// an attribute the block marks sensitive or write-only holds: what a run
// scrubs from whatever it prints.
func (b *Block) AppendSecrets(out []string, v cty.Value) []string {
	if v == cty.NilVal || !b.holdsSensitive() && !b.holdsWriteOnly() {
		return out
	}
	for _, path := range b.pathsOf(v, func(a *Attribute) bool { return a.Sensitive || a.WriteOnly }) {
		x, err := path.Apply(v)
		if err != nil || !x.IsWhollyKnown() {
			continue
		}
		out = value.AppendLeaves(out, FromCty(x))
	}
	return out
}

// WriteOnlyAt reports whether path (of a value of the block's type) ends
// at, or inside, a write-only attribute.
func (b *Block) WriteOnlyAt(path cty.Path) bool {
	blk := b
	var obj *Object
	for _, step := range path {
		name, ok := step.(cty.GetAttrStep)
		if !ok {
			continue // an element of a nested block or object
		}
		var a *Attribute
		switch {
		case obj != nil:
			a = obj.Attributes[name.Name]
		case blk != nil:
			if nb := blk.BlockTypes[name.Name]; nb != nil {
				blk = &nb.Block
				continue
			}
			a = blk.Attributes[name.Name]
		}
		if a == nil {
			return false
		}
		if a.WriteOnly {
			return true
		}
		blk, obj = nil, a.NestedType
		if obj == nil {
			return false
		}
	}
	return false
}

// NullWriteOnly is v with every write-only attribute's value null.
func (b *Block) NullWriteOnly(v cty.Value) cty.Value {
	paths := b.WriteOnlyPaths(v)
	if len(paths) == 0 {
		return v
	}
	out, err := cty.Transform(v, func(p cty.Path, x cty.Value) (cty.Value, error) {
		for _, wo := range paths {
			if p.Equals(wo) {
				return cty.NullVal(x.Type()), nil
			}
		}
		return x, nil
	})
	if err != nil {
		return v
	}
	return out
}
