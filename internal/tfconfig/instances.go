package tfconfig

import (
	"fmt"
	"math/big"
	"slices"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/lang/marks"
	"github.com/kyku/action/internal/value"
)

// expansion is the instances of a resource or module call: decided from
// its count or for_each once, when first needed.
type expansion struct {
	state    prepState
	rep      repetition
	keys     []instKey
	failed   bool       // count or for_each could not be decided (reported)
	children []*modInst // a call's instances, by keys
}

// expandResource decides the instances of resource key ("type.name" or
// "data.type.name") of mi.
func (mi *modInst) expandResource(key string) *expansion {
	mi.mu.Lock()
	e := mi.res[key]
	if e == nil {
		e = &expansion{}
		mi.res[key] = e
	}
	mi.mu.Unlock()
	switch e.state {
	case preparing:
		return mi.cycle(mi.prefix() + key)
	case prepared:
		return e
	}
	e.state = preparing
	defer func() { e.state = prepared }()
	r := mi.mod.Resources[key]
	e.rep, e.keys, e.failed = mi.repeat(mi.prefix()+key, r.Count, r.ForEach, r.Enabled)
	return e
}

// expandCall decides the instances of module call name of mi and makes
// them.
func (mi *modInst) expandCall(name string) *expansion {
	mi.mu.Lock()
	e := mi.calls[name]
	if e == nil {
		e = &expansion{}
		mi.calls[name] = e
	}
	mi.mu.Unlock()
	switch e.state {
	case preparing:
		return mi.cycle(mi.prefix() + "module." + name)
	case prepared:
		return e
	}
	e.state = preparing
	defer func() { e.state = prepared }()
	c := mi.mod.Calls[name]
	child := mi.mod.Children[name]
	if child == nil {
		e.failed = true
		return e
	}
	e.rep, e.keys, e.failed = mi.repeat(mi.prefix()+"module."+name, c.Count, c.ForEach, c.Enabled)
	for _, k := range e.keys {
		addr := mi.prefix() + "module." + name + k.suffix()
		e.children = append(e.children, mi.ev.childInst(child, addr, mi, c, k))
	}
	return e
}

// countRead records that argument arg of by (expr) read refs before
// planning (config.CountRead): a plan changing what it read is refused.
func (ev *evaluator) countRead(by, arg string, expr hcl.Expression, refs []value.Ref) {
	cr := &config.CountRead{By: by, Arg: arg, Pos: pos(expr.Range())}
	for _, r := range refs {
		cr.Reads = append(cr.Reads, r.Resource)
	}
	slices.Sort(cr.Reads)
	cr.Reads = slices.Compact(cr.Reads)
	ev.countReads = append(ev.countReads, cr)
}

// cycle reports a count or for_each that reads what it decides (through
// whatever it reads), and stands for its expansion meanwhile.
func (mi *modInst) cycle(by string) *expansion {
	mi.ev.diags = append(mi.ev.diags, &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Cycle",
		Detail:   fmt.Sprintf("The count or for_each of %s reads %s itself, through the values it reads.", by, by),
	})
	return &expansion{state: prepared, failed: true}
}

// repeat evaluates count, for_each or lifecycle enabled (at most one is
// set) of by in mi with what is known before planning: the instances'
// keys, in order (enabled: one without a key, or none).
func (mi *modInst) repeat(by string, count, forEach, enabled hcl.Expression) (repetition, []instKey, bool) {
	for arg, expr := range map[string]hcl.Expression{"count": count, "for_each": forEach, "enabled": enabled} {
		if expr == nil {
			continue
		}
		if refs := mi.readAtPlan((scope{mi: mi}).refsOf(expr.Variables())); len(refs) > 0 && !mi.keysKnownAnyway(expr, arg != "for_each") {
			mi.ev.countRead(by, arg, expr, refs)
		}
	}
	if before := mi.ev.pendings; mi.ev.partial {
		defer func() {
			if mi.ev.pendings > before {
				mi.ev.undecided = append(mi.ev.undecided, by)
			}
		}()
	}
	switch {
	case enabled != nil && mi.ev.in.Validating:
		return single, []instKey{{}}, false // tofu validate checks the body, not enabled
	case enabled != nil:
		on, ok := mi.enabled(enabled)
		if !on {
			return single, nil, !ok
		}
		return single, []instKey{{}}, false
	case count != nil:
		n, ok := mi.count(count)
		keys := make([]instKey, n)
		for i := range keys {
			keys[i] = instKey{rep: counted, index: i}
		}
		return counted, keys, !ok
	case forEach != nil:
		keys, ok := mi.forEach(forEach)
		if refs := (scope{mi: mi}).refsOf(forEach.Variables()); len(refs) > 0 {
			src := &eachSource{expr: forEach, sc: scope{mi: mi}, refs: refs}
			for i := range keys {
				keys[i].source = src
			}
		}
		return eached, keys, !ok
	}
	return single, []instKey{{}}, false
}

// keysKnownAnyway reports whether count (isCount) or for_each expr
// decides its instances with nothing known of the resources it reads: a
// number, a map's keys or a set's elements that the values read do not
// make (their values only: each.value, which is evaluated when planned).
// A change to what it reads then changes no instance, as OpenTofu has
// it (for_each needs its keys known, not its values).
func (mi *modInst) keysKnownAnyway(expr hcl.Expression, isCount bool) bool {
	v, diags := scope{mi: mi, configured: true}.eval(expr, nil, memo{})
	if diags.HasErrors() || fromFailure(v) {
		return false
	}
	v, _ = v.UnmarkDeep()
	switch ty := v.Type(); {
	case isCount:
		return v.IsKnown()
	case ty.IsMapType() || ty.IsObjectType():
		return v.IsKnown()
	default:
		return v.IsWhollyKnown()
	}
}

// unknownHint is what OpenTofu's errors about unknown counts suggest,
// with Kyku's --target (it has no -exclude).
const unknownHint = "To work around this, use the --target option to first apply only the resources that the %s depends on, and then apply normally to converge."

func (mi *modInst) count(expr hcl.Expression) (int, bool) {
	v, diags := scope{mi: mi, configured: true}.eval(expr, mi.ev.in.Known, memo{})
	if diags.HasErrors() {
		mi.ev.diags = append(mi.ev.diags, diags...)
		return 0, false
	}
	bad := func(detail string) (int, bool) {
		mi.ev.diags = append(mi.ev.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid count argument", Detail: detail, Subject: expr.Range().Ptr()})
		return 0, false
	}
	if fromFailure(v) {
		return 0, false // its error is reported
	}
	v, _ = v.Unmark()
	if !v.IsKnown() && mi.ev.partial {
		mi.ev.pending, mi.ev.pendings = true, mi.ev.pendings+1
		return 0, false
	}
	switch {
	case !v.IsKnown():
		return bad("The \"count\" value depends on resource attributes that cannot be determined until apply, so OpenTofu cannot predict how many instances will be created.\n\n" + fmt.Sprintf(unknownHint, "count"))
	case v.IsNull():
		return bad(`The given "count" argument value is null. An integer is required.`)
	}
	num, err := convert.Convert(v, cty.Number)
	if err != nil {
		return bad(fmt.Sprintf(`The given "count" argument value is unsuitable: %s.`, err))
	}
	if !num.IsKnown() {
		return bad("The \"count\" value depends on resource attributes that cannot be determined until apply, so OpenTofu cannot predict how many instances will be created.\n\n" + fmt.Sprintf(unknownHint, "count"))
	}
	bf := num.AsBigFloat()
	if !bf.IsInt() {
		return bad(`The given "count" argument value is unsuitable: value must be a whole number.`)
	}
	n, acc := bf.Int64()
	if acc != big.Exact || n < 0 {
		return bad(`The given "count" argument value is unsuitable: must be greater than or equal to zero.`)
	}
	return int(n), true
}

// enabled evaluates lifecycle enabled, as OpenTofu does: a known,
// non-sensitive bool (ok false: refused, or not known yet).
func (mi *modInst) enabled(expr hcl.Expression) (on, ok bool) {
	v, diags := scope{mi: mi, configured: true}.eval(expr, mi.ev.in.Known, memo{})
	if diags.HasErrors() {
		mi.ev.diags = append(mi.ev.diags, diags...)
		return false, false
	}
	bad := func(detail string) (bool, bool) {
		mi.ev.diags = append(mi.ev.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid enabled argument", Detail: detail, Subject: expr.Range().Ptr()})
		return false, false
	}
	if fromFailure(v) {
		return false, false // its error is reported
	}
	if v.HasMark(marks.Sensitive) {
		return bad(`Sensitive values, or values derived from sensitive values, cannot be used in "enabled" arguments. If used, the sensitive value would be exposed by whether an instance is present.`)
	}
	v, _ = v.UnmarkDeep()
	if !v.IsKnown() && mi.ev.partial {
		mi.ev.pending, mi.ev.pendings = true, mi.ev.pendings+1
		return false, false
	}
	switch {
	case v.IsNull():
		return bad(`The given "enabled" argument value is unsuitable: the given value is null.`)
	case !v.IsKnown():
		return bad(`The given "enabled" argument value is derived from a value that won't be known until the apply phase, so OpenTofu cannot determine whether an instance of this object is declared or not.`)
	}
	b, err := convert.Convert(v, cty.Bool)
	if err != nil {
		return bad(fmt.Sprintf(`The given "enabled" argument value is unsuitable: %s.`, err))
	}
	return b.True(), true
}

func (mi *modInst) forEach(expr hcl.Expression) ([]instKey, bool) {
	v, diags := scope{mi: mi, configured: true}.eval(expr, mi.ev.in.Known, memo{})
	if diags.HasErrors() {
		mi.ev.diags = append(mi.ev.diags, diags...)
		return nil, false
	}
	bad := func(detail string) ([]instKey, bool) {
		mi.ev.diags = append(mi.ev.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid for_each argument", Detail: detail, Subject: expr.Range().Ptr()})
		return nil, false
	}
	if fromFailure(v) {
		return nil, false // its error is reported
	}
	if v.HasMark(marks.Sensitive) {
		return bad("Sensitive values, or values derived from sensitive values, cannot be used as for_each arguments. If used, the sensitive value could be exposed as a resource instance key.")
	}
	ty := v.Type()
	unknownDetail := ""
	switch {
	case ty == cty.DynamicPseudoType:
		unknownDetail = "The \"for_each\" value includes keys or set values from resource attributes that cannot be determined until apply, and so OpenTofu cannot determine what will identify the instances of this resource.\n\nWhen working with unknown values in for_each, it's better to define the map keys statically in your configuration and place apply-time results only in the map values.\n\n"
	case ty.IsMapType() || ty.IsObjectType():
		unknownDetail = "The \"for_each\" map includes keys derived from resource attributes that cannot be determined until apply, and so OpenTofu cannot determine the full set of keys that will identify the instances of this resource.\n\nWhen working with unknown values in for_each, it's better to define the map keys statically in your configuration and place apply-time results only in the map values.\n\n"
	case ty.IsSetType():
		if et := ty.ElementType(); et != cty.String && et != cty.DynamicPseudoType {
			return bad(fmt.Sprintf(`The given "for_each" argument value is unsuitable: "for_each" supports sets of strings, but you have provided a set containing type %s.`, et.FriendlyName()))
		}
		unknownDetail = "The \"for_each\" set includes values derived from resource attributes that cannot be determined until apply, and so OpenTofu cannot determine the full set of keys that will identify the instances of this resource.\n\nWhen working with unknown values in for_each, it's better to use a map value where the keys are defined statically in your configuration and where only the values contain apply-time results.\n\n"
	default:
		return bad(fmt.Sprintf(`The given "for_each" argument value is unsuitable: the "for_each" argument must be a map, or set of strings, and you have provided a value of type %s.`, ty.FriendlyName()))
	}
	unmarked, _ := v.Unmark()
	if !unmarked.IsKnown() || (ty.IsSetType() && !unmarked.IsWhollyKnown()) {
		if mi.ev.partial {
			mi.ev.pending, mi.ev.pendings = true, mi.ev.pendings+1
			return nil, false
		}
		return bad(unknownDetail + fmt.Sprintf(unknownHint, "for_each"))
	}
	if unmarked.IsNull() {
		return bad(`The given "for_each" argument value is unsuitable: the given "for_each" argument value is null.`)
	}
	var keys []instKey
	for it := unmarked.ElementIterator(); it.Next(); {
		k, e := it.Element()
		if ty.IsSetType() {
			if k.IsNull() {
				return bad(`The given "for_each" argument value is unsuitable: "for_each" sets must not contain null values.`)
			}
			ks, err := convert.Convert(k, cty.String)
			if err != nil {
				return bad(fmt.Sprintf(`The given "for_each" argument value is unsuitable: "for_each" supports sets of strings, but you have provided a set containing type %s.`, k.Type().FriendlyName()))
			}
			keys = append(keys, instKey{rep: eached, key: ks.AsString(), value: k})
			continue
		}
		keys = append(keys, instKey{rep: eached, key: k.AsString(), value: e})
	}
	if !ty.IsSetType() {
		mi.plainEachValues(expr, keys)
	}
	slices.SortFunc(keys, func(a, b instKey) int {
		switch {
		case a.key < b.key:
			return -1
		case a.key > b.key:
			return 1
		}
		return 0
	})
	return keys, true
}

// instanceAddr is the address of instance k of resource key of mi.
func (mi *modInst) instanceAddr(key string, k instKey) string {
	return mi.prefix() + key + k.suffix()
}

// resourceValue is what an expression reads of resource key of mi: the
// object of its one instance, a tuple of its counted instances' or an
// object of its for_each instances' (by key).
func (mi *modInst) resourceValue(key string, t hcl.Traversal, lookup value.Lookup, want []string) (cty.Value, hcl.Diagnostics) {
	_, kyku := kykuType(mi.mod.Resources[key].Type)
	return mi.instancesValue(key, lookup, want, kyku)
}

// instancesValue is resourceValue's value; kyku says the resource is of
// a Kyku type (its attributes are read in snake case).
func (mi *modInst) instancesValue(key string, lookup value.Lookup, want []string, kyku bool) (cty.Value, hcl.Diagnostics) {
	e := mi.expandResource(key)
	if e.failed {
		return failed(cty.DynamicPseudoType), nil
	}
	switch e.rep {
	case counted:
		if len(e.keys) == 0 {
			return cty.EmptyTupleVal, nil
		}
		elems := make([]cty.Value, len(e.keys))
		for i, k := range e.keys {
			elems[i] = instanceObject(mi.instanceAddr(key, k), lookup, want, kyku)
		}
		return cty.TupleVal(elems), nil
	case eached:
		if len(e.keys) == 0 {
			return cty.EmptyObjectVal, nil
		}
		attrs := make(map[string]cty.Value, len(e.keys))
		for _, k := range e.keys {
			attrs[k.key] = instanceObject(mi.instanceAddr(key, k), lookup, want, kyku)
		}
		return cty.ObjectVal(attrs), nil
	}
	if len(e.keys) == 0 {
		return cty.NullVal(cty.DynamicPseudoType), nil // lifecycle enabled = false
	}
	return instanceObject(mi.instanceAddr(key, e.keys[0]), lookup, want, kyku), nil
}

// callValue is what an expression reads of module call name of mi: the
// object of its one instance's outputs, a tuple or an object of its
// instances' (as resourceValue).
// read, when not nil, names the outputs to evaluate (what the expression
// reads); the others are unknown in the objects.
// instances, when not nil, are the indexes it reads (instancesRead); the
// other instances are unknown.
func (mi *modInst) callValue(name string, t hcl.Traversal, lookup value.Lookup, m memo, read map[string]bool, instances []cty.Value) (cty.Value, hcl.Diagnostics) {
	if mi.mod.Calls[name] == nil {
		return cty.DynamicVal, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Reference to undeclared module",
			Detail:   fmt.Sprintf("No module call named %q is declared in %s.", name, mi.moduleDisplay()),
			Subject:  t.SourceRange().Ptr(),
		}}
	}
	e := mi.expandCall(name)
	if e.failed {
		return failed(cty.DynamicPseudoType), nil
	}
	var diags hcl.Diagnostics
	outputs := func(child *modInst) cty.Value {
		attrs := map[string]cty.Value{}
		for oname, n := range child.outputs {
			if read != nil && !read[oname] {
				attrs[oname] = cty.DynamicVal
				continue
			}
			v, ds := n.value(lookup, m)
			diags = append(diags, ds...)
			if n.sensitive {
				v = v.Mark(marks.Sensitive)
			}
			attrs[oname] = v
		}
		if len(attrs) == 0 {
			return cty.EmptyObjectVal
		}
		return cty.ObjectVal(attrs)
	}
	switch e.rep {
	case counted:
		if len(e.children) == 0 {
			return cty.EmptyTupleVal, nil
		}
		elems := make([]cty.Value, len(e.children))
		for i, c := range e.children {
			elems[i] = cty.DynamicVal
			if readsInstance(instances, e.rep, e.keys[i]) {
				elems[i] = outputs(c)
			}
		}
		return cty.TupleVal(elems), diags
	case eached:
		if len(e.children) == 0 {
			return cty.EmptyObjectVal, nil
		}
		attrs := make(map[string]cty.Value, len(e.children))
		for i, c := range e.children {
			attrs[e.keys[i].key] = cty.DynamicVal
			if readsInstance(instances, e.rep, e.keys[i]) {
				attrs[e.keys[i].key] = outputs(c)
			}
		}
		return cty.ObjectVal(attrs), diags
	}
	if len(e.children) == 0 {
		return cty.NullVal(cty.DynamicPseudoType), diags // lifecycle enabled = false
	}
	return outputs(e.children[0]), diags
}

// refsOf are the resource instances the traversals read, through the
// named values they read.
func (s scope) refsOf(travs []hcl.Traversal) []value.Ref {
	mi := s.mi
	var out []value.Ref
	for _, t := range travs {
		t = s.instanceTraversal(t)
		root := t.RootName()
		switch root {
		case "var", "local":
			name, ok := stepName(t, 1)
			pool := mi.vars
			if root == "local" {
				pool = mi.locals
			}
			if n := pool[name]; ok && n != nil {
				n.prepare()
				out = append(out, n.refs...)
			}
		case "module":
			name, ok := stepName(t, 1)
			if !ok || mi.mod.Calls[name] == nil {
				continue
			}
			e := mi.expandCall(name)
			children, rest := pick(e, e.children, t[2:])
			oname, named := stepName(rest, 0)
			for _, c := range children {
				for on, n := range c.outputs {
					if named && on != oname {
						continue
					}
					n.prepare()
					out = append(out, n.refs...)
				}
			}
		case "data", "resource": // resource.TYPE.NAME is TYPE.NAME
			typ, ok1 := stepName(t, 1)
			name, ok2 := stepName(t, 2)
			key := typ + "." + name
			if root == "data" {
				key = "data." + key
			}
			if ok1 && ok2 && mi.mod.Resources[key] != nil {
				out = append(out, mi.resourceRefs(key, t[3:])...)
			}
		case "each":
			// each.value reads what for_each reads; each.key is the
			// instance's key, decided when it was expanded, never
			// sensitive (OpenTofu refuses a sensitive for_each): an
			// argument reading the key alone reads no resource (the
			// instance still waits for them: its DependsOn, in expand).
			if attr, _ := stepName(t, 1); s.key.source != nil && attr != "key" {
				out = append(out, s.key.source.refs...)
			}
		case "count", "path", "terraform", "tofu", "self":
		default:
			name, ok := stepName(t, 1)
			if ok && mi.mod.Resources[root+"."+name] != nil {
				out = append(out, mi.resourceRefs(root+"."+name, t[2:])...)
			}
		}
	}
	return uniqueRefs(out)
}

// instanceTraversal is t with its count.index and each.key steps
// (countIndex, eachKey) set to s's instance's index or key; left as
// they are (any instance) outside an instance of that kind.
func (s scope) instanceTraversal(t hcl.Traversal) hcl.Traversal {
	var out hcl.Traversal
	for i, step := range t {
		idx, ok := step.(hcl.TraverseIndex)
		if !ok || idx.Key.IsKnown() {
			continue
		}
		var key cty.Value
		switch {
		case idx.Key.Type() == cty.Number && s.key.rep == counted:
			key = cty.NumberIntVal(int64(s.key.index))
		case idx.Key.Type() == cty.String && s.key.rep == eached:
			key = cty.StringVal(s.key.key)
		default:
			continue
		}
		if out == nil {
			out = slices.Clone(t)
		}
		out[i] = hcl.TraverseIndex{Key: key, SrcRange: idx.SrcRange}
	}
	if out == nil {
		return t
	}
	return out
}

// resourceRefs are the instances of resource key a traversal reads,
// rest being what follows the resource's name.
func (mi *modInst) resourceRefs(key string, rest hcl.Traversal) []value.Ref {
	e := mi.expandResource(key)
	if e.failed {
		return nil
	}
	keys, after := pick(e, e.keys, rest)
	attr := value.AllAttrs
	if name, ok := stepName(after, 0); ok {
		if _, isAttr := after[0].(hcl.TraverseAttr); isAttr {
			attr = name
		}
	}
	out := make([]value.Ref, len(keys))
	for i, k := range keys {
		out[i] = value.Ref{Resource: mi.instanceAddr(key, k), Attr: attr}
	}
	return out
}

// pick is the instances of e (items, one per key) a traversal's rest
// selects: the one its literal index names, else all; and what follows.
func pick[T any](e *expansion, items []T, rest hcl.Traversal) ([]T, hcl.Traversal) {
	if e.rep == single || len(rest) == 0 {
		return items, rest
	}
	idx, ok := rest[0].(hcl.TraverseIndex)
	if ok && !idx.Key.IsKnown() {
		return items, rest[1:] // an index computed at plan (refTraversals): any of them
	}
	if !ok || idx.Key.IsNull() {
		return items, rest
	}
	// As HCL indexes: a tuple by a number (or a string that is one), an
	// object by a string (or a number, as its text).
	want := cty.String
	if e.rep == counted {
		want = cty.Number
	}
	key, err := convert.Convert(idx.Key, want)
	if err != nil || key.IsNull() {
		return items, rest[1:] // HCL reports it when evaluating
	}
	for i, k := range e.keys {
		switch {
		case e.rep == counted:
			if n, acc := key.AsBigFloat().Int64(); acc == big.Exact && int(n) == k.index {
				return items[i : i+1], rest[1:]
			}
		case e.rep == eached:
			if key.AsString() == k.key {
				return items[i : i+1], rest[1:]
			}
		}
	}
	return nil, rest[1:] // no such instance: HCL reports it when evaluating
}

func uniqueRefs(refs []value.Ref) []value.Ref {
	seen := make(map[value.Ref]bool, len(refs))
	out := refs[:0:0]
	for _, r := range refs {
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	return out
}
