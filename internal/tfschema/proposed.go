package tfschema

import (
	"github.com/zclconf/go-cty/cty"
)

// ProposedNew is the proposed new state a client sends with
// PlanResourceChange, as Terraform forms it: the configuration, where an
// attribute the provider computes is not configured, the prior state's
// value of it. The provider then plans from it (it marks what it will
// compute as unknown). Nested blocks are matched to their prior
// instances by index (list), key (map) or, for a set, by equal
// configured (non-computed) attributes. prior may be null (a create);
// config null (a destroy) gives null.
func ProposedNew(b *Block, prior, config cty.Value) cty.Value {
	if config.IsNull() {
		return cty.NullVal(b.ImpliedType())
	}
	if prior.IsNull() {
		if proposesItself(b, config) {
			return config // a create's, without building it again
		}
		prior = EmptyValue(b)
	}
	return proposedBlock(b, prior, config)
}

// proposesItself reports whether the proposed new state of config
// against no prior state is config itself, as it is for every
// configuration Config accepts: config is of the block's type (so every
// null the proposal would put in place of a computed attribute is the
// one config holds) and every block nested in it is known and non-null
// where proposedBlock would put an empty prior's value in its place (a
// group block, an element of a list, set or map of blocks). A block
// type without nested block types costs a type comparison.
// TestProposesItself holds it to proposedBlock.
func proposesItself(b *Block, config cty.Value) bool {
	return config.IsKnown() && !config.IsNull() && config.Type().Equals(b.ImpliedType()) && blocksItself(b, config)
}

func blocksItself(b *Block, config cty.Value) bool {
	for _, name := range b.blockOrder() {
		nb := b.BlockTypes[name]
		v := config.GetAttr(name)
		if !v.IsKnown() {
			continue // proposedNested keeps an unknown block as it is
		}
		switch nb.Nesting {
		case NestingSingle:
			if !v.IsNull() && !blocksItself(&nb.Block, v) {
				return false
			}
		case NestingGroup:
			if v.IsNull() || !blocksItself(&nb.Block, v) {
				return false
			}
		case NestingList, NestingSet, NestingMap:
			if v.IsNull() {
				continue
			}
			for it := v.ElementIterator(); it.Next(); {
				_, e := it.Element()
				if !e.IsKnown() || e.IsNull() || !blocksItself(&nb.Block, e) {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}

// PlannedUnknown is what a data source read during apply is known to
// hold at plan, as OpenTofu's PlannedUnknownObject forms it: the
// configuration, where an attribute the provider computes is not
// configured, unknown (the proposed new state against a wholly unknown
// prior one).
func PlannedUnknown(b *Block, config cty.Value) cty.Value {
	return ProposedNew(b, cty.UnknownVal(b.ImpliedType()), config)
}

// EmptyValue is the value of an empty block: every attribute null, no
// nested blocks (a group block holds its own empty value).
func EmptyValue(b *Block) cty.Value {
	if b.derived != nil {
		return b.derived.empty
	}
	return emptyValue(b)
}

func emptyValue(b *Block) cty.Value {
	vals := make(map[string]cty.Value, len(b.Attributes)+len(b.BlockTypes))
	for name, a := range b.Attributes {
		vals[name] = cty.NullVal(a.ImpliedType())
	}
	for name, nb := range b.BlockTypes {
		vals[name] = emptyNested(nb)
	}
	return cty.ObjectVal(vals)
}

func emptyNested(nb *NestedBlock) cty.Value {
	ety := nb.Block.ImpliedType()
	ty := nb.impliedType()
	switch nb.Nesting {
	case NestingGroup:
		return EmptyValue(&nb.Block)
	case NestingList:
		if ty == cty.DynamicPseudoType {
			return cty.EmptyTupleVal
		}
		return cty.ListValEmpty(ety)
	case NestingSet:
		return cty.SetValEmpty(ety)
	case NestingMap:
		if ty == cty.DynamicPseudoType {
			return cty.EmptyObjectVal
		}
		return cty.MapValEmpty(ety)
	}
	return cty.NullVal(ety)
}

func proposedBlock(b *Block, prior, config cty.Value) cty.Value {
	if config.IsNull() || !config.IsKnown() {
		return prior
	}
	if prior.IsKnown() && prior.IsNull() {
		prior = EmptyValue(b)
	}
	vals := proposedAttributes(b.Attributes, prior, config)
	for name, nb := range b.BlockTypes {
		vals[name] = proposedNested(nb, prior.GetAttr(name), config.GetAttr(name))
	}
	return cty.ObjectVal(vals)
}

func proposedAttributes(attrs map[string]*Attribute, prior, config cty.Value) map[string]cty.Value {
	vals := make(map[string]cty.Value, len(attrs))
	for name, a := range attrs {
		cv := config.GetAttr(name)
		pv := cty.NullVal(a.ImpliedType())
		switch {
		case !prior.IsKnown(): // a wholly unknown prior (PlannedUnknown)
			pv = cty.UnknownVal(a.ImpliedType())
		case !prior.IsNull():
			pv = prior.GetAttr(name)
		}
		switch {
		case a.Computed && cv.IsNull():
			vals[name] = pv // the provider's own value stays
		case a.NestedType != nil:
			vals[name] = proposedObject(a.NestedType, pv, cv)
		default:
			vals[name] = cv
		}
	}
	return vals
}

func proposedObject(o *Object, prior, config cty.Value) cty.Value {
	if config.IsNull() || !config.IsKnown() {
		return config
	}
	one := func(p, c cty.Value) cty.Value {
		if c.IsNull() || !c.IsKnown() {
			return c
		}
		return cty.ObjectVal(proposedAttributes(o.Attributes, p, c))
	}
	ety := o.elemType()
	computed := func(name string) bool { return o.Attributes[name].Computed }
	return proposedCollection(o.Nesting, ety, o.ImpliedType(), prior, config, one, computed)
}

func proposedNested(nb *NestedBlock, prior, config cty.Value) cty.Value {
	if !config.IsKnown() {
		return config
	}
	switch nb.Nesting {
	case NestingSingle:
		if config.IsNull() {
			return config
		}
		return proposedBlock(&nb.Block, prior, config)
	case NestingGroup:
		return proposedBlock(&nb.Block, prior, config)
	}
	one := func(p, c cty.Value) cty.Value { return proposedBlock(&nb.Block, p, c) }
	computed := func(name string) bool {
		a, ok := nb.Block.Attributes[name]
		return ok && a.Computed
	}
	return proposedCollection(nb.Nesting, nb.Block.ImpliedType(), nb.impliedType(), prior, config, one, computed)
}

// proposedCollection pairs each configured element with its prior one
// and proposes each.
func proposedCollection(n Nesting, ety, ty cty.Type, prior, config cty.Value, one func(p, c cty.Value) cty.Value, computed func(string) bool) cty.Value {
	if config.IsNull() || config.LengthInt() == 0 {
		return config
	}
	priorOK := !prior.IsNull() && prior.IsKnown()
	none := cty.NullVal(ety)
	switch n {
	case NestingList:
		var priors []cty.Value
		if priorOK {
			priors = prior.AsValueSlice()
		}
		out := make([]cty.Value, 0, config.LengthInt())
		for it := config.ElementIterator(); it.Next(); {
			k, c := it.Element()
			i, _ := k.AsBigFloat().Int64()
			p := none
			switch {
			case !prior.IsKnown(): // a wholly unknown prior: so is each element (PlannedUnknown)
				p = cty.UnknownVal(ety)
			case int(i) < len(priors):
				p = priors[i]
			}
			out = append(out, one(p, c))
		}
		if ty == cty.DynamicPseudoType {
			return cty.TupleVal(out)
		}
		return cty.ListVal(out)
	case NestingMap:
		var priors map[string]cty.Value
		if priorOK {
			priors = prior.AsValueMap()
		}
		out := make(map[string]cty.Value, config.LengthInt())
		for it := config.ElementIterator(); it.Next(); {
			k, c := it.Element()
			p, ok := priors[k.AsString()]
			if !ok {
				p = none
			}
			out[k.AsString()] = one(p, c)
		}
		if ty == cty.DynamicPseudoType {
			return cty.ObjectVal(out)
		}
		return cty.MapVal(out)
	case NestingSet:
		var priors []cty.Value
		if priorOK {
			priors = prior.AsValueSlice()
		}
		used := make([]bool, len(priors))
		out := make([]cty.Value, 0, config.LengthInt())
		for it := config.ElementIterator(); it.Next(); {
			_, c := it.Element()
			p := none
			for i, cand := range priors {
				if !used[i] && sameConfigured(cand, c, computed) {
					used[i], p = true, cand
					break
				}
			}
			out = append(out, one(p, c))
		}
		return cty.SetVal(out)
	}
	return config
}

// sameConfigured reports whether two set elements agree on every
// attribute the provider does not compute: then they are the same
// element, its computed attributes known from the prior one.
func sameConfigured(prior, config cty.Value, computed func(string) bool) bool {
	if !prior.IsKnown() || prior.IsNull() || !config.IsKnown() || config.IsNull() {
		return false
	}
	for name := range config.Type().AttributeTypes() {
		if computed(name) {
			continue
		}
		cv, pv := config.GetAttr(name), prior.GetAttr(name)
		if !cv.IsWhollyKnown() {
			continue
		}
		if eq := cv.Equals(pv); !eq.IsKnown() || eq.False() {
			return false
		}
	}
	return true
}
