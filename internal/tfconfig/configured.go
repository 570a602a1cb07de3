package tfconfig

import (
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/kyku/action/internal/value"
)

// What count and for_each may read of a managed resource planned in the
// same run: the arguments its configuration sets to values known before
// planning (reading no resource). OpenTofu knows them at plan, as a
// provider plans a configured argument as it is written; the rest of the
// object is known as state has it, or not yet.

// configuredValue is v, the value an expression reads of managed
// resource key of mi (an object, a tuple or an object of its instances'
// objects), with each instance's configured arguments known.
func (mi *modInst) configuredValue(key string, v cty.Value, want []string) cty.Value {
	r := mi.mod.Resources[key]
	if r == nil || r.Mode != Managed {
		return v
	}
	e := mi.expandResource(key)
	if e.failed {
		return v
	}
	switch e.rep {
	case counted:
		if !v.IsKnown() || !v.Type().IsTupleType() || v.LengthInt() != len(e.keys) {
			return v
		}
		elems := v.AsValueSlice()
		for i, k := range e.keys {
			elems[i] = mi.configuredObject(r, k, elems[i], want)
		}
		if len(elems) == 0 {
			return v
		}
		return cty.TupleVal(elems)
	case eached:
		if !v.IsKnown() || !v.Type().IsObjectType() || len(e.keys) == 0 {
			return v
		}
		attrs := v.AsValueMap()
		for _, k := range e.keys {
			if a, ok := attrs[k.key]; ok {
				attrs[k.key] = mi.configuredObject(r, k, a, want)
			}
		}
		return cty.ObjectVal(attrs)
	}
	if len(e.keys) == 0 {
		return v // lifecycle enabled = false: null
	}
	return mi.configuredObject(r, e.keys[0], v, want)
}

// configuredObject is obj (an instance's object, or unknown when nothing
// is known of it) with the instance's configured arguments (k: its key)
// that are known before planning set; want are the attributes the
// expression reads (those an unknown object is given, unknown).
func (mi *modInst) configuredObject(r *Resource, k instKey, obj cty.Value, want []string) cty.Value {
	args := mi.configuredArgs(r, k)
	if len(args) == 0 {
		return obj
	}
	attrs := map[string]cty.Value{}
	if obj.IsKnown() && !obj.IsNull() && obj.Type().IsObjectType() {
		attrs = obj.AsValueMap()
	} else if marked, _ := obj.Unmark(); !marked.IsKnown() {
		// Nothing known of it but its configuration: the arguments it
		// does not set stay unknown, as an unknown object's would.
		for _, name := range want {
			attrs[name] = cty.DynamicVal
		}
	}
	for name, v := range args {
		attrs[name] = v
	}
	return cty.ObjectVal(attrs)
}

// configuredArgs are the arguments of instance k of r its configuration
// sets to values known before planning, by name.
func (mi *modInst) configuredArgs(r *Resource, k instKey) map[string]cty.Value {
	if r.Body == nil || r.Body.Native == nil {
		return nil
	}
	sc := scope{mi: mi, key: k}
	out := map[string]cty.Value{}
	for name, a := range r.Body.Native.Attributes {
		if v, ok := sc.configuredArg(a); ok {
			out[name] = v
		}
	}
	return out
}

// configuredArg is argument a's value when it reads no resource and is
// wholly known before planning (ok); configuredArgs' test of one.
func (sc scope) configuredArg(a *hclsyntax.Attribute) (cty.Value, bool) {
	if len(sc.refsOf(a.Expr.Variables())) > 0 {
		return cty.NilVal, false
	}
	v, diags := sc.eval(a.Expr, nil, memo{})
	if diags.HasErrors() || !v.IsWhollyKnown() {
		return cty.NilVal, false
	}
	return v, true
}

// readAtPlan are refs without those count or for_each reads of a managed
// resource's configured argument (configuredArgs): what they read is
// known when planning starts, so a plan that changes that resource does
// not change what they decided.
func (mi *modInst) readAtPlan(refs []value.Ref) []value.Ref {
	out := refs[:0:0]
	for _, ref := range refs {
		if !mi.configuredRef(ref) {
			out = append(out, ref)
		}
	}
	return out
}

// configuredRef reports whether ref reads a configured argument, known
// before planning, of a managed resource instance of mi.
func (mi *modInst) configuredRef(ref value.Ref) bool {
	if ref.Attr == "" || ref.Attr == value.AllAttrs {
		return false
	}
	rest, ok := strings.CutPrefix(ref.Resource, mi.prefix())
	if !ok {
		return false
	}
	key := rest
	if i := strings.IndexByte(rest, '['); i >= 0 {
		key = rest[:i]
	}
	r := mi.mod.Resources[key]
	if r == nil || r.Mode != Managed || strings.Contains(key, ".module.") {
		return false
	}
	if r.Body == nil || r.Body.Native == nil {
		return false
	}
	a := r.Body.Native.Attributes[ref.Attr]
	if a == nil {
		return false
	}
	for _, k := range mi.expandResource(key).keys {
		if mi.instanceAddr(key, k) == ref.Resource {
			_, ok := scope{mi: mi, key: k}.configuredArg(a) // that argument alone, not the whole body
			return ok
		}
	}
	return false
}

// plainEachValues sets the each.value of keys (a map's or an object's,
// decided with the configured arguments known) to what the for_each
// expression gives without them: an object known by its configuration
// alone lacks the attributes it does not set, which each.value may read
// (they are known, or not, as the engine evaluates each.value again).
func (mi *modInst) plainEachValues(expr hcl.Expression, keys []instKey) {
	v, diags := scope{mi: mi}.eval(expr, mi.ev.in.Known, memo{})
	v, vm := v.Unmark()
	for i := range keys {
		keys[i].value = cty.DynamicVal
		if diags.HasErrors() || !v.IsKnown() || v.IsNull() {
			continue
		}
		switch ty := v.Type(); {
		case ty.IsObjectType() && ty.HasAttribute(keys[i].key):
			keys[i].value = v.GetAttr(keys[i].key).WithMarks(vm)
		case ty.IsMapType():
			if has := v.HasIndex(cty.StringVal(keys[i].key)); has.IsKnown() && has.True() {
				keys[i].value = v.Index(cty.StringVal(keys[i].key)).WithMarks(vm)
			}
		}
	}
}
