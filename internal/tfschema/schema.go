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
	// Functions are the functions the provider defines, by name
	// (provider::NAME::FUNCTION in a configuration).
	Functions map[string]*Function
}

// Function is the signature of a function a provider defines: its
// positional parameters, the one taking any number of arguments after
// them (Variadic, may be nil), and its result's type.
type Function struct {
	Params   []FunctionParam
	Variadic *FunctionParam
	Return   cty.Type
	Summary  string
}

// FunctionParam is one parameter of a Function. AllowNull: null may be
// passed; AllowUnknown: a value not wholly known is passed too (else the
// result is unknown without a call).
type FunctionParam struct {
	Name                    string
	Type                    cty.Type
	AllowNull, AllowUnknown bool
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
	derived *derived // computed once by Finish
}

// derived is what Finish computes of a block once instead of per value:
// its names in order, its empty value, and whether it holds a sensitive
// or a write-only attribute anywhere.
type derived struct {
	attrNames, blockNames, names []string
	empty                        cty.Value
	sensitive, writeOnly         bool
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

	// computed once by the Finish of the block holding it
	elem, implied cty.Type
	attrNames     []string
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
	for _, a := range b.Attributes {
		a.finish()
	}
	for _, nb := range b.BlockTypes {
		nb.Block.Finish()
	}
	b.implied = b.computeType()
	d := &derived{
		attrNames: attributeNames(b.Attributes), blockNames: blockNames(b.BlockTypes), names: b.Names(),
		sensitive: b.holds(isSensitive), writeOnly: b.holds(isWriteOnly),
	}
	d.empty = emptyValue(b)
	b.derived = d
}

func (a *Attribute) finish() {
	o := a.NestedType
	if o == nil {
		return
	}
	for _, na := range o.Attributes {
		na.finish()
	}
	o.attrNames = attributeNames(o.Attributes)
	o.elem = o.computeElem()
	o.implied = o.wrap(o.elem)
}

// attrOrder is the block's attribute names, sorted.
func (b *Block) attrOrder() []string {
	if b.derived != nil {
		return b.derived.attrNames
	}
	return attributeNames(b.Attributes)
}

// blockOrder is the block's nested block type names, sorted.
func (b *Block) blockOrder() []string {
	if b.derived != nil {
		return b.derived.blockNames
	}
	return blockNames(b.BlockTypes)
}

// Order is Names, kept by Finish: the block's attribute and nested
// block names, sorted, the order of a value's attributes in msgpack.
// The caller must not change it.
func (b *Block) Order() []string {
	if b.derived != nil {
		return b.derived.names
	}
	return b.Names()
}

// HasSecrets reports whether an attribute of the block, at any depth,
// is sensitive or write-only: only then does a value of the block hold
// a text to mask, or one the provider must not answer with.
func (b *Block) HasSecrets() bool { return b.holdsSensitive() || b.holdsWriteOnly() }

// holdsSensitive reports whether an attribute of the block, at any
// depth, is sensitive.
func (b *Block) holdsSensitive() bool {
	if b.derived != nil {
		return b.derived.sensitive
	}
	return b.holds(isSensitive)
}

// holdsWriteOnly reports whether an attribute of the block, at any
// depth, is write-only.
func (b *Block) holdsWriteOnly() bool {
	if b.derived != nil {
		return b.derived.writeOnly
	}
	return b.holds(isWriteOnly)
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
	if o.implied != cty.NilType {
		return o.implied
	}
	return o.wrap(o.computeElem())
}

// elemType is the type of one object of the nested type (the element of
// a list, set or map of them).
func (o *Object) elemType() cty.Type {
	if o.elem != cty.NilType {
		return o.elem
	}
	return o.computeElem()
}

// attrOrder is the object's attribute names, sorted.
func (o *Object) attrOrder() []string {
	if o.attrNames != nil {
		return o.attrNames
	}
	return attributeNames(o.Attributes)
}

func (o *Object) computeElem() cty.Type {
	atys := make(map[string]cty.Type, len(o.Attributes))
	for name, a := range o.Attributes {
		atys[name] = a.ImpliedType()
	}
	return cty.Object(atys)
}

// wrap is the type of the nested type's value, of objects of type ety.
func (o *Object) wrap(ety cty.Type) cty.Type {
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
