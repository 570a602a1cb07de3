package tfschema

import (
	"sort"

	"github.com/zclconf/go-cty/cty"
)

// Nesting is how a nested block or a nested attribute type repeats.
type Nesting int

// The nesting modes of the plugin protocol. Group is for blocks only: a
// single block that is never null (absent, its attributes are null).
const (
	NestingInvalid Nesting = iota
	NestingSingle
	NestingList
	NestingSet
	NestingMap
	NestingGroup
)

func (n Nesting) String() string {
	switch n {
	case NestingSingle:
		return "single"
	case NestingList:
		return "list"
	case NestingSet:
		return "set"
	case NestingMap:
		return "map"
	case NestingGroup:
		return "group"
	}
	return "invalid"
}

// ProviderSchema is what GetProviderSchema answers: the provider's own
// configuration, and the schema of each resource type and data source.
type ProviderSchema struct {
	Provider      *Schema
	ProviderMeta  *Schema // may be nil
	ResourceTypes map[string]*Schema
	DataSources   map[string]*Schema
	// PlanDestroy: the provider wants PlanResourceChange called for
	// destroys too (a null proposed state).
	PlanDestroy bool
	// GetProviderSchemaOptional: the provider needs no GetProviderSchema
	// call before others in a new process.
	GetProviderSchemaOptional bool
}

// Schema is one resource type's, data source's or the provider's schema.
// Version is the resource's schema version: state written by an older
// version is passed through UpgradeResourceState first.
type Schema struct {
	Version int64
	Block   *Block
}

// Block is an object of attributes and nested blocks.
type Block struct {
	Attributes map[string]*Attribute
	BlockTypes map[string]*NestedBlock
	Deprecated bool

	implied cty.Type // ImpliedType, computed once by Finish
}

// Attribute is one attribute of a block or of a nested object type. Exactly
// one of Type and NestedType is set (NestedType: protocol 6 only).
type Attribute struct {
	Type       cty.Type
	NestedType *Object

	Required, Optional, Computed bool
	Sensitive, WriteOnly         bool
	Deprecated                   bool
}

// Object is the nested type of an attribute (protocol 6): a set of
// attributes repeated per Nesting (single, list, set or map).
type Object struct {
	Attributes map[string]*Attribute
	Nesting    Nesting
}

// NestedBlock is a block type nested in a block.
type NestedBlock struct {
	Block
	Nesting            Nesting
	MinItems, MaxItems int
}

// Finish computes the block's implied type and those of its nested
// blocks, once, after the block is fully built. The decoder of
// GetProviderSchema calls it; a block built by hand must call it before
// use. Not safe to call concurrently with readers; afterwards the block
// is only read and safe to share.
func (b *Block) Finish() {
	for _, nb := range b.BlockTypes {
		nb.Block.Finish()
	}
	b.implied = b.computeType()
}

// ImpliedType is the type of a value conforming to the block: an object
// with one attribute per attribute and per nested block type.
func (b *Block) ImpliedType() cty.Type {
	if b.implied == cty.NilType {
		return b.computeType()
	}
	return b.implied
}

func (b *Block) computeType() cty.Type {
	atys := make(map[string]cty.Type, len(b.Attributes)+len(b.BlockTypes))
	for name, a := range b.Attributes {
		atys[name] = a.ImpliedType()
	}
	for name, nb := range b.BlockTypes {
		atys[name] = nb.impliedType()
	}
	return cty.Object(atys)
}

// impliedType of a nested block type. A list or map of blocks holding a
// dynamically typed attribute cannot be a list or map (its elements may
// differ in type): it is a dynamic value (a tuple or object), as Terraform
// has it.
func (nb *NestedBlock) impliedType() cty.Type {
	ety := nb.Block.ImpliedType()
	switch nb.Nesting {
	case NestingList:
		if ety.HasDynamicTypes() {
			return cty.DynamicPseudoType
		}
		return cty.List(ety)
	case NestingSet:
		return cty.Set(ety)
	case NestingMap:
		if ety.HasDynamicTypes() {
			return cty.DynamicPseudoType
		}
		return cty.Map(ety)
	}
	return ety // single, group
}

// ImpliedType is the attribute's value type.
func (a *Attribute) ImpliedType() cty.Type {
	if a.NestedType == nil {
		return a.Type
	}
	return a.NestedType.ImpliedType()
}

// ImpliedType is the type of a value of the nested object type.
func (o *Object) ImpliedType() cty.Type {
	atys := make(map[string]cty.Type, len(o.Attributes))
	for name, a := range o.Attributes {
		atys[name] = a.ImpliedType()
	}
	ety := cty.Object(atys)
	switch o.Nesting {
	case NestingList:
		if ety.HasDynamicTypes() {
			return cty.DynamicPseudoType
		}
		return cty.List(ety)
	case NestingSet:
		return cty.Set(ety)
	case NestingMap:
		if ety.HasDynamicTypes() {
			return cty.DynamicPseudoType
		}
		return cty.Map(ety)
	}
	return ety
}

// Names returns the block's attribute and nested block names, sorted.
func (b *Block) Names() []string {
	out := make([]string, 0, len(b.Attributes)+len(b.BlockTypes))
	for name := range b.Attributes {
		out = append(out, name)
	}
	for name := range b.BlockTypes {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// attributeNames returns the names of m, sorted, so that diagnostics and
// walks never depend on map order.
func attributeNames(m map[string]*Attribute) []string {
	out := make([]string, 0, len(m))
	for name := range m {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

func blockNames(m map[string]*NestedBlock) []string {
	out := make([]string, 0, len(m))
	for name := range m {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}
