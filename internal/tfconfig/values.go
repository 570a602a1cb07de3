package tfconfig

import (
	"sync"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/kyku/action/internal/lang/ctyvalue"
	"github.com/kyku/action/internal/lang/marks"
	"github.com/kyku/action/internal/value"
)

// Kyku's canonical values (package value) and cty values meet here.
// Unknown values are value.Unknown on Kyku's side, a string holding it
// unknown as a whole; numbers are float64.

// canonical is v as a canonical value, marks dropped; unknown says it
// holds parts not known yet (value.Unknown there).
func canonical(v cty.Value) (out any, unknown bool) { return ctyvalue.Canonical(v) }

// fromCanonical is the cty value of a canonical one (ctyvalue).
func fromCanonical(v any) cty.Value { return ctyvalue.FromCanonical(v) }

// objectWith is the object of a resource instance's attributes vals,
// with every name of want it lacks null (state leaves null attributes
// out; an expression reading one reads null).
func objectWith(vals map[string]any, want []string) cty.Value {
	attrs := make(map[string]cty.Value, len(vals)+len(want))
	for k, e := range vals {
		attrs[k] = fromCanonical(e)
	}
	for _, name := range want {
		if _, ok := attrs[name]; !ok {
			attrs[name] = cty.NullVal(cty.DynamicPseudoType)
		}
	}
	if len(attrs) == 0 {
		return cty.EmptyObjectVal
	}
	return cty.ObjectVal(attrs)
}

// sensitiveIn reports whether v or a value in it is sensitive.
func sensitiveIn(v cty.Value) bool { return marks.Contains(v, marks.Sensitive) }

// invalid marks the placeholder of a value whose evaluation failed (its
// error reported): what derives from it is unknown for that reason, and
// says nothing more (a count read from it is not "unknown until apply").
type invalidMark struct{}

var invalid = invalidMark{}

// failed is the placeholder of a failed evaluation.
func failed(ty cty.Type) cty.Value { return cty.UnknownVal(ty).Mark(invalid) }

// fromFailure reports whether v derives from a failed evaluation.
func fromFailure(v cty.Value) bool {
	if !v.ContainsMarked() {
		return false
	}
	_, pvms := v.UnmarkDeepWithPaths()
	for _, pvm := range pvms {
		if _, ok := pvm.Marks[invalid]; ok {
			return true
		}
	}
	return false
}

// typedObject is obj, the object of resource instance addr as its
// canonical values make it, with each attribute converted to the type its
// provider's schema gives it (value.ObjectType, when lookup answers it):
// a list, a set or a map, where canonical values read as a tuple or an
// object, as OpenTofu reads them (for_each over a set attribute, an
// output recording a list).
func typedObject(obj cty.Value, addr string, lookup value.Lookup) cty.Value {
	return withSchemaTypes(obj, objectTypeOf(addr, lookup))
}

// objectTypeOf is the object type of resource instance addr that lookup
// answers (value.ObjectType); cty.NilType when it answers none.
func objectTypeOf(addr string, lookup value.Lookup) cty.Type {
	t, ok := lookup(value.Ref{Resource: addr, Attr: value.ObjectType})
	if !ok {
		return cty.NilType
	}
	ty, ok := schemaType(t)
	if !ok || !ty.IsObjectType() {
		return cty.NilType
	}
	return ty
}

// withSchemaTypes is obj with each attribute converted to its type in
// ty, an object type (cty.NilType: obj as it is).
func withSchemaTypes(obj cty.Value, ty cty.Type) cty.Value {
	if ty == cty.NilType || !obj.IsKnown() || obj.IsNull() || !obj.Type().IsObjectType() {
		return obj
	}
	var attrs map[string]cty.Value
	for name, v := range obj.AsValueMap() {
		cv, changed := convertAttr(v, ty, name)
		if !changed {
			continue
		}
		if attrs == nil {
			attrs = obj.AsValueMap()
		}
		attrs[name] = cv
	}
	if attrs == nil {
		return obj
	}
	return cty.ObjectVal(attrs)
}

// schemaTyped is v, attribute name of an object of type ty (cty.NilType:
// none known), converted to the attribute's type; v itself when it is of
// it, the schema says any type, or it does not convert (what reads it
// then says what is wrong).
func schemaTyped(v cty.Value, ty cty.Type, name string) cty.Value {
	cv, _ := convertAttr(v, ty, name)
	return cv
}

// convertAttr is schemaTyped, and whether it converted v.
func convertAttr(v cty.Value, ty cty.Type, name string) (cty.Value, bool) {
	if ty == cty.NilType || !ty.HasAttribute(name) {
		return v, false
	}
	at := ty.AttributeType(name)
	if at == cty.DynamicPseudoType || v.Type().Equals(at) {
		return v, false
	}
	cv, err := convert.Convert(v, at)
	if err != nil {
		return v, false
	}
	return cv, true
}

// schemaTypes caches schemaType's answers by their JSON text.
var schemaTypes sync.Map // string → cty.Type

// schemaType is t, a type in Terraform's JSON type syntax as JSON text,
// as a cty type.
func schemaType(t any) (cty.Type, bool) {
	text, ok := t.(string)
	if !ok {
		return cty.NilType, false
	}
	if got, ok := schemaTypes.Load(text); ok {
		return got.(cty.Type), true
	}
	ty, err := ctyjson.UnmarshalType([]byte(text))
	if err != nil {
		return cty.NilType, false
	}
	schemaTypes.Store(text, ty)
	return ty, true
}
