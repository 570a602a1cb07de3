package tfschema

import (
	"fmt"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/kyku/action/internal/suggest"
	"github.com/kyku/action/internal/value"
)

// Config builds the configuration value a provider receives from a
// resource's, data source's or provider's properties as Kyku read them:
// every attribute of the schema present (null when not set), nested
// blocks as YAML maps (single, group; a list block also accepts one map
// for a list of one) and lists of maps (a single or group block a list
// of at most one, as HCL's blocks are read), values converted as Terraform
// converts them (300 for a string attribute is "300", "300" for a number
// is 300). Every problem is reported, each with the path of the property
// it is about: an argument the schema lacks, a required one missing, a
// value for an attribute only the provider sets, a value of the wrong
// type, too few or too many blocks. The value is usable only when the
// diagnostics hold no error.
func Config(b *Block, props map[string]any) (cty.Value, Diagnostics) {
	var ds Diagnostics
	v := configBlock(b, props, nil, &ds)
	return v, ds
}

func configBlock(b *Block, props map[string]any, path cty.Path, ds *Diagnostics) cty.Value {
	for _, k := range sortedKeys(props) {
		_, isAttr := b.Attributes[k]
		_, isBlock := b.BlockTypes[k]
		if !isAttr && !isBlock {
			ds.errorTF(path.GetAttr(k), fmt.Sprintf("unsupported argument %q%s", k, suggest.DidYouMean(k, b.Names())),
				"Unsupported argument", fmt.Sprintf("An argument named %q is not expected here.%s", k, suggest.Terraform(k, b.Names())))
		}
	}
	vals := make(map[string]cty.Value, len(b.Attributes)+len(b.BlockTypes))
	for _, name := range b.attrOrder() {
		vals[name] = configAttribute(b.Attributes[name], name, props[name], path.GetAttr(name), ds)
	}
	for _, name := range b.blockOrder() {
		vals[name] = configNestedBlock(b.BlockTypes[name], props[name], path.GetAttr(name), ds)
	}
	return cty.ObjectVal(vals)
}

func configAttribute(a *Attribute, name string, v any, path cty.Path, ds *Diagnostics) cty.Value {
	ty := a.ImpliedType()
	if v == nil {
		if a.Required {
			ds.errorTF(path, fmt.Sprintf("the argument %q is required", name),
				"Missing required argument", fmt.Sprintf("The argument %q is required, but no definition was found.", name))
		}
		return cty.NullVal(ty)
	}
	if a.Computed && !a.Optional && !a.Required {
		ds.errorTF(path, fmt.Sprintf("%q is set by the provider and cannot be configured", name),
			"Invalid Configuration for Read-Only Attribute", "Cannot set value for this attribute as the provider has marked it as read-only. Remove the configuration line setting the value.")
		return cty.NullVal(ty)
	}
	if a.Deprecated {
		*ds = append(*ds, Diagnostic{Severity: Warning, Summary: fmt.Sprintf("the argument %q is deprecated", name), Path: path.Copy()})
	}
	if IsUnknown(v) {
		return cty.UnknownVal(ty)
	}
	if a.NestedType != nil {
		return configObject(a.NestedType, v, path, ds)
	}
	return configValue(v, ty, path, ds)
}

// configValue converts a value of a plain attribute: its natural cty
// value converted to the type, as Terraform converts an expression's
// result to the attribute's type.
func configValue(v any, ty cty.Type, path cty.Path, ds *Diagnostics) cty.Value {
	if out, ok := direct(v, ty); ok {
		return out
	}
	in, err := infer(v, path)
	if err != nil {
		ds.errorTF(path, err.Error(), "Incorrect attribute value type", fmt.Sprintf("Inappropriate value for attribute %q: %s.", lastAttr(path), err))
		return cty.UnknownVal(ty)
	}
	out, err := convert.Convert(in, ty)
	if err != nil {
		ds.errorTF(path, convertReason(err), "Incorrect attribute value type", fmt.Sprintf("Inappropriate value for attribute %q: %s.", lastAttr(path), convertReason(err)))
		return cty.UnknownVal(ty)
	}
	return out
}

// direct is configValue's result where it needs no conversion: a
// string, number or bool for an attribute of that type, a map or list
// of plain strings for a map, list or set of strings. It is what infer
// and convert.Convert give (TestDirectIsInferConvert), without building
// the inferred value and a conversion first. ok false: anything else,
// an unknown or null inside, a key cty would normalize.
func direct(v any, ty cty.Type) (cty.Value, bool) {
	switch ty {
	case cty.String:
		if s, ok := v.(string); ok && !IsUnknown(s) {
			return cty.StringVal(s), true
		}
	case cty.Bool:
		if b, ok := v.(bool); ok {
			return cty.BoolVal(b), true
		}
	case cty.Number:
		if f, ok := v.(float64); ok {
			if bf, ok := value.BigFloat(f); ok {
				return cty.NumberVal(bf), true
			}
		}
	}
	if !ty.IsCollectionType() || ty.ElementType() != cty.String {
		return cty.NilVal, false
	}
	if ty.IsMapType() {
		m, ok := v.(map[string]any)
		if !ok {
			return cty.NilVal, false
		}
		if len(m) == 0 {
			return cty.MapValEmpty(cty.String), true
		}
		vals := make(map[string]cty.Value, len(m))
		for k, e := range m {
			s, ok := e.(string)
			if !ok || !ascii(k) || IsUnknown(s) {
				return cty.NilVal, false
			}
			vals[k] = cty.StringVal(s)
		}
		return cty.MapVal(vals), true
	}
	l, ok := v.([]any)
	if !ok {
		return cty.NilVal, false
	}
	if len(l) == 0 {
		if ty.IsSetType() {
			return cty.SetValEmpty(cty.String), true
		}
		return cty.ListValEmpty(cty.String), true
	}
	vals := make([]cty.Value, len(l))
	for i, e := range l {
		s, ok := e.(string)
		if !ok || IsUnknown(s) {
			return cty.NilVal, false
		}
		vals[i] = cty.StringVal(s)
	}
	if ty.IsSetType() {
		return cty.SetVal(vals), true
	}
	return cty.ListVal(vals), true
}

// ascii reports whether s is all ASCII, which Unicode normalization
// leaves as it is.
func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// convertReason is cty's conversion error without its path (ours is
// more complete): "a number is required".
func convertReason(err error) string {
	if pe, ok := err.(cty.PathError); ok {
		if len(pe.Path) > 0 {
			return PathString(pe.Path) + ": " + pe.Error()
		}
		return pe.Error()
	}
	return err.Error()
}

// configObject converts a nested attribute type's value (protocol 6).
func configObject(o *Object, v any, path cty.Path, ds *Diagnostics) cty.Value {
	ety := o.elemType()
	one := func(v any, path cty.Path) cty.Value {
		if v == nil {
			return cty.NullVal(ety)
		}
		if IsUnknown(v) {
			return cty.UnknownVal(ety)
		}
		m, ok := v.(map[string]any)
		if !ok {
			ds.errorf(path, "an object is required, not "+kind(v))
			return cty.UnknownVal(ety)
		}
		for _, k := range sortedKeys(m) {
			if _, ok := o.Attributes[k]; !ok {
				ds.errorf(path.GetAttr(k), fmt.Sprintf("unsupported attribute %q%s", k, suggest.DidYouMean(k, attributeNames(o.Attributes))))
			}
		}
		vals := make(map[string]cty.Value, len(o.Attributes))
		for _, name := range o.attrOrder() {
			vals[name] = configAttribute(o.Attributes[name], name, m[name], path.GetAttr(name), ds)
		}
		return cty.ObjectVal(vals)
	}
	switch o.Nesting {
	case NestingList, NestingSet:
		l, ok := v.([]any)
		if !ok {
			ds.errorf(path, "a list is required, not "+kind(v))
			return cty.UnknownVal(o.ImpliedType())
		}
		vals := make([]cty.Value, len(l))
		for i, e := range l {
			vals[i] = one(e, path.IndexInt(i))
		}
		return collection(o.Nesting, ety, o.ImpliedType(), vals, nil, path, ds)
	case NestingMap:
		m, ok := v.(map[string]any)
		if !ok {
			ds.errorf(path, "a map is required, not "+kind(v))
			return cty.UnknownVal(o.ImpliedType())
		}
		vals := make(map[string]cty.Value, len(m))
		for _, k := range sortedKeys(m) {
			vals[k] = one(m[k], path.Index(cty.StringVal(k)))
		}
		return collection(NestingMap, ety, o.ImpliedType(), nil, vals, path, ds)
	}
	return one(v, path)
}

func configNestedBlock(nb *NestedBlock, v any, path cty.Path, ds *Diagnostics) cty.Value {
	ety := nb.Block.ImpliedType()
	ty := nb.impliedType()
	if IsUnknown(v) {
		return cty.UnknownVal(ty)
	}
	one := func(v any, path cty.Path) cty.Value {
		m, ok := v.(map[string]any)
		if !ok {
			ds.errorf(path, "a block (a map of its arguments) is required, not "+kind(v))
			return cty.UnknownVal(ety)
		}
		return configBlock(&nb.Block, m, path, ds)
	}
	switch nb.Nesting {
	case NestingSingle, NestingGroup:
		// An HCL block is written the same whatever its nesting: a list
		// of one (or none, a dynamic block's) is the block.
		if l, ok := v.([]any); ok {
			switch len(l) {
			case 0:
				v = nil
			case 1:
				v = l[0]
			default:
				ds.errorf(path, fmt.Sprintf("no more than one block is allowed, %d given", len(l)))
				return cty.UnknownVal(ety)
			}
		}
		if v == nil {
			if nb.Nesting == NestingSingle {
				return cty.NullVal(ety)
			}
			v = map[string]any{}
		}
		return one(v, path)
	case NestingList, NestingSet:
		var l []any
		switch x := v.(type) {
		case nil:
		case []any:
			l = x
		case map[string]any:
			l = []any{x} // one block written as a map
		default:
			ds.errorf(path, "a list of blocks is required, not "+kind(v))
			return cty.UnknownVal(ty)
		}
		countBlocks(nb, len(l), path, ds)
		vals := make([]cty.Value, len(l))
		for i, e := range l {
			vals[i] = one(e, path.IndexInt(i))
		}
		return collection(nb.Nesting, ety, ty, vals, nil, path, ds)
	case NestingMap:
		m, ok := v.(map[string]any)
		if v != nil && !ok {
			ds.errorf(path, "a map of blocks is required, not "+kind(v))
			return cty.UnknownVal(ty)
		}
		countBlocks(nb, len(m), path, ds)
		vals := make(map[string]cty.Value, len(m))
		for _, k := range sortedKeys(m) {
			vals[k] = one(m[k], path.Index(cty.StringVal(k)))
		}
		return collection(NestingMap, ety, ty, nil, vals, path, ds)
	}
	ds.errorf(path, "unsupported block nesting "+nb.Nesting.String())
	return cty.UnknownVal(ty)
}

func countBlocks(nb *NestedBlock, n int, path cty.Path, ds *Diagnostics) {
	switch {
	case nb.MinItems > 0 && n < nb.MinItems:
		ds.errorTF(path, fmt.Sprintf("at least %d block(s) required, %d given", nb.MinItems, n),
			fmt.Sprintf("Insufficient %s blocks", lastAttr(path)), fmt.Sprintf("At least %d %q blocks are required.", nb.MinItems, lastAttr(path)))
	case nb.MaxItems > 0 && n > nb.MaxItems:
		ds.errorTF(path, fmt.Sprintf("at most %d block(s) allowed, %d given", nb.MaxItems, n),
			fmt.Sprintf("Too many %s blocks", lastAttr(path)), fmt.Sprintf("No more than %d %q blocks are allowed", nb.MaxItems, lastAttr(path)))
	}
}

// collection builds a list, set or map of elements of type ety, or, when
// the implied type is dynamic (the elements hold dynamically typed
// attributes), a tuple or object. Elements are conformant or unknown.
func collection(n Nesting, ety, ty cty.Type, list []cty.Value, m map[string]cty.Value, path cty.Path, ds *Diagnostics) cty.Value {
	dynamic := ty == cty.DynamicPseudoType
	switch n {
	case NestingMap:
		switch {
		case dynamic:
			return cty.ObjectVal(m)
		case len(m) == 0:
			return cty.MapValEmpty(ety)
		}
		return cty.MapVal(m)
	case NestingSet:
		if len(list) == 0 {
			return cty.SetValEmpty(ety)
		}
		return cty.SetVal(list)
	}
	switch {
	case dynamic:
		return cty.TupleVal(list)
	case len(list) == 0:
		return cty.ListValEmpty(ety)
	}
	return cty.ListVal(list)
}
