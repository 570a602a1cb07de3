package tfconfig

import (
	"fmt"
	"maps"
	"math/big"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/lang/funcs"
	"github.com/kyku/action/internal/value"
)

// The evaluator. A module instance (modInst) holds the named values of
// one instance of a module: its variables (the caller's arguments, or
// the root's inputs), locals and outputs, each evaluated once when it
// reads no resource (a constant), or again with each lookup when it
// does. Resources and module calls are expanded (their instances
// decided) when first needed, count and for_each evaluated with what is
// known before planning (Inputs.Known).

// evaluator is one expansion of a module tree.
type evaluator struct {
	in    Inputs
	root  *modInst
	diags hcl.Diagnostics
	files map[string]*hcl.File // every file read, for diagnostics' source lines
	// varsUnread: a variables file could not be read or parsed (the
	// values it may hold are not said missing).
	varsUnread bool
	// undeclared are the values variables files gave to variables the
	// root module does not declare (undeclaredWarnings).
	undeclared []undeclaredValue

	// partial leaves out the instances of what count or for_each cannot
	// decide yet (pending says there are some), for a later expansion
	// with more known.
	partial, pending bool
	countReads       []*config.CountRead
	// pendings counts what partial left undecided; undecided are the
	// resources and module calls it left out (config.Config.Undecided).
	pendings  int
	undecided []string

	fns *funcs.Tables // built on first use (see functions)
	// provFns are the providers' functions the configuration calls
	// (providerFunctions), asked before anything is evaluated.
	provFns map[string]function.Function

	travs travCache // the traversals of each expression, found once

	// warned are warnOnce's, by key, until consolidateWarnings takes
	// them (expressions evaluated after, from many goroutines, warn of
	// nothing: expanding warned of all).
	warnMu   sync.Mutex
	warned   map[string]*hcl.Diagnostic
	expanded bool
}

// warnOnce records warning d of key: one warning a key, at the first
// place in the configuration's files that gives it (consolidateWarnings),
// as OpenTofu warns of a deprecated variable or output once, however many
// calls or instances use it.
func (ev *evaluator) warnOnce(key string, d *hcl.Diagnostic) {
	ev.warnMu.Lock()
	defer ev.warnMu.Unlock()
	if ev.expanded {
		return
	}
	key = d.Summary + "\n" + key
	if prev := ev.warned[key]; prev != nil && !before(*d.Subject, *prev.Subject) {
		return
	}
	if ev.warned == nil {
		ev.warned = map[string]*hcl.Diagnostic{}
	}
	ev.warned[key] = d
}

// before orders ranges by file, then place.
func before(a, b hcl.Range) bool {
	if a.Filename != b.Filename {
		return a.Filename < b.Filename
	}
	return a.Start.Byte < b.Start.Byte
}

// consolidateWarnings adds warnOnce's warnings to the diagnostics, in the
// order of their places.
func (ev *evaluator) consolidateWarnings() {
	ev.warnMu.Lock()
	defer ev.warnMu.Unlock()
	ev.expanded = true
	ds := slices.Collect(maps.Values(ev.warned))
	slices.SortFunc(ds, func(a, b *hcl.Diagnostic) int {
		switch {
		case before(*a.Subject, *b.Subject):
			return -1
		case before(*b.Subject, *a.Subject):
			return 1
		}
		return 0
	})
	ev.diags = append(ev.diags, ds...)
	ev.warned = nil
}

// functions is the function table: at plan, the impure functions
// (timestamp, uuid, bcrypt) are unknown, known once applying. A
// configuration is read as OpenTofu run in the root module's directory
// reads it: relative paths given to the file functions start there, as
// path.module and path.root do.
func (ev *evaluator) functions(applying bool) map[string]function.Function {
	return ev.fns.For(applying)
}

// newFunctions are ev's function tables (functions).
func (ev *evaluator) newFunctions() *funcs.Tables {
	return funcs.NewTables(func() funcs.Options {
		root := ev.rootDir()
		return funcs.Options{BaseDir: root, WorkDir: root, Within: repository(root), Getenv: ev.in.Getenv, Now: ev.in.Now, PlanTimestamp: ev.in.PlanTimestamp,
			BuiltinProvider: builtinNames(ev.root.mod), Providers: ev.provFns}
	})
}

// builtinNames are the local names m, and the modules it calls, require
// OpenTofu's built-in provider by (terraform.io/builtin/terraform): its
// functions are called as provider::NAME::encode_tfvars.
func builtinNames(m *Module) []string {
	var out []string
	for local, rp := range m.RequiredProviders {
		if strings.EqualFold(rp.Source, "terraform.io/builtin/terraform") {
			out = append(out, local)
		}
	}
	for _, c := range m.Children {
		if c != nil {
			out = append(out, builtinNames(c)...)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// repository is the directory the file functions may read in
// (funcs.Repository).
func repository(dir string) string { return funcs.Repository(dir) }

// rootDir is the root module's directory, absolute.
func (ev *evaluator) rootDir() string {
	abs, err := filepath.Abs(ev.root.mod.Dir)
	if err != nil {
		return ev.root.mod.Dir
	}
	return abs
}

// modulePath is path.module of mi: its directory relative to the root
// module's ("." for the root module).
func (mi *modInst) modulePath() string {
	rel, err := filepath.Rel(mi.ev.root.mod.Dir, mi.mod.Dir)
	if err != nil {
		return filepath.ToSlash(mi.mod.Dir)
	}
	return filepath.ToSlash(rel)
}

// repetition says how a resource or module call is repeated, and which
// instance a scope is in.
type repetition int

const (
	single repetition = iota
	counted
	eached
)

// instKey is one instance of a repeated block: its count.index, or its
// each.key and each.value. When the for_each read resources, each.value
// is read again from it with each lookup (source): the value expansion
// saw is only as known as what was known then.
type instKey struct {
	rep   repetition
	index int
	key   string
	// numKey: each.key is index, a number (an import block's for_each
	// over a list or tuple); else key, a string.
	numKey bool
	value  cty.Value
	source *eachSource
}

// eachSource is a for_each expression that reads resources (refs).
type eachSource struct {
	expr hcl.Expression
	sc   scope
	refs []value.Ref
}

// eachValue is each.value of k with lookup.
func (k instKey) eachValue(lookup value.Lookup, m memo) (cty.Value, hcl.Diagnostics) {
	if k.source == nil || lookup == nil {
		return k.value, nil
	}
	v, diags := k.source.sc.eval(k.source.expr, lookup, m)
	if diags.HasErrors() {
		return v, diags
	}
	v, vm := v.Unmark()
	ty := v.Type()
	switch {
	case !v.IsKnown() || v.IsNull():
		return cty.DynamicVal, nil
	case ty.IsSetType():
		return cty.StringVal(k.key).WithMarks(vm), nil
	case ty.IsObjectType():
		if !ty.HasAttribute(k.key) {
			return cty.DynamicVal, nil
		}
		return v.GetAttr(k.key).WithMarks(vm), nil
	case ty.IsMapType():
		if has := v.HasIndex(cty.StringVal(k.key)); !has.IsKnown() || !has.True() {
			return cty.DynamicVal, nil
		}
		return v.Index(cty.StringVal(k.key)).WithMarks(vm), nil
	}
	return cty.DynamicVal, nil
}

// suffix is the instance's part of an address: "", [0] or ["a"].
func (k instKey) suffix() string {
	switch k.rep {
	case counted:
		return "[" + strconv.Itoa(k.index) + "]"
	case eached:
		return "[" + strconv.Quote(k.key) + "]"
	}
	return ""
}

// modInst is one instance of a module.
type modInst struct {
	ev     *evaluator
	mod    *Module
	addr   string // "" for the root; module.net["a"], module.net["a"].module.sub
	parent *modInst
	call   *Call
	key    instKey // of the call

	vars    map[string]*named
	locals  map[string]*named
	outputs map[string]*named

	mu    sync.Mutex // guards res and calls, filled as they are first needed
	res   map[string]*expansion
	calls map[string]*expansion

	consts constRoots // the var and local objects of constant values, by expression
}

func newModInst(ev *evaluator, mod *Module, addr string, parent *modInst, call *Call, key instKey) *modInst {
	mi := &modInst{ev: ev, mod: mod, addr: addr, parent: parent, call: call, key: key,
		vars: map[string]*named{}, locals: map[string]*named{}, outputs: map[string]*named{},
		res: map[string]*expansion{}, calls: map[string]*expansion{}}
	for name, l := range mod.Locals {
		mi.locals[name] = &named{kind: "local", name: name, expr: l.Expr, sc: scope{mi: mi}, rng: l.DeclRange}
	}
	for name, o := range mod.Outputs {
		mi.outputs[name] = &named{kind: "output", name: name, expr: o.Expr, sc: scope{mi: mi}, rng: o.DeclRange, sensitive: o.Sensitive}
	}
	return mi
}

// prefix is what the instance's resources' addresses start with.
func (mi *modInst) prefix() string {
	if mi.addr == "" {
		return ""
	}
	return mi.addr + "."
}

// scope is where an expression is evaluated: a module instance, and the
// instance of the resource or call it belongs to (count.index, each).
type scope struct {
	mi   *modInst
	key  instKey
	self string // the address self names ("" : self is not allowed)
	// configured: the managed resources read are known by what their
	// configuration sets (count and for_each, see configuredObject).
	configured bool
}

// named is a variable, local or output of a module instance.
type named struct {
	kind, name string
	expr       hcl.Expression // nil for a root variable: val is its value
	sc         scope
	rng        hcl.Range
	sensitive  bool                                         // an output declared sensitive
	finish     func(cty.Value) (cty.Value, hcl.Diagnostics) // a variable's conversion to its type

	state    prepState
	refs     []value.Ref
	constant bool // reads no resource: val is its value
	val      cty.Value
}

// prepState is how far prepare got: expansion prepares every named value
// (single-threaded) before any expression is evaluated concurrently.
type prepState int

const (
	unprepared prepState = iota
	preparing
	prepared
)

// memo holds the values named values took in one evaluation (one
// lookup).
type memo map[*named]cty.Value

// value is n's value with lookup.
func (n *named) value(lookup value.Lookup, m memo) (cty.Value, hcl.Diagnostics) {
	n.prepare()
	if n.constant {
		return n.val, nil
	}
	if v, ok := m[n]; ok {
		return v, nil
	}
	v, diags := n.sc.eval(n.expr, lookup, m)
	if n.finish != nil && !diags.HasErrors() {
		var ds hcl.Diagnostics
		v, ds = n.finish(v)
		diags = append(diags, ds...)
	}
	m[n] = v
	return v, diags
}

// prepare decides once whether n reads a resource, and when it does not,
// computes its value. A value reading itself is a cycle.
func (n *named) prepare() {
	switch n.state {
	case prepared:
		return
	case preparing:
		n.sc.mi.ev.diags = append(n.sc.mi.ev.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Cycle in named values",
			Detail:   fmt.Sprintf("The %s %q refers to itself, through the values it reads.", n.kind, n.name),
			Subject:  n.rng.Ptr(),
		})
		n.constant, n.val = true, cty.DynamicVal
		return
	}
	n.state = preparing
	defer func() { n.state = prepared }()
	if n.expr == nil {
		n.constant = true
		return
	}
	n.refs = n.sc.refsOf(refTraversals(n.expr))
	if n.constant {
		return // a cycle was met on the way
	}
	if len(n.refs) > 0 {
		n.sc.reportRefs(n.expr.Variables()) // evaluated once what it reads is known
		return
	}
	v, diags := n.sc.eval(n.expr, nil, memo{})
	if n.finish != nil && !diags.HasErrors() {
		var ds hcl.Diagnostics
		v, ds = n.finish(v)
		diags = append(diags, ds...)
	}
	n.sc.mi.ev.diags = append(n.sc.mi.ev.diags, diags...)
	// A value left unknown reading no resource calls a function known
	// only once applying (timestamp(), uuid(), bcrypt(); a provider's
	// function given one of them): evaluated again with each lookup, so
	// that applying knows it, as OpenTofu does.
	n.val, n.constant = v, diags.HasErrors() || v.IsWhollyKnown()
}

// eval evaluates expr in s, resources read with lookup (nil: none is
// known).
func (s scope) eval(expr hcl.Expression, lookup value.Lookup, m memo) (cty.Value, hcl.Diagnostics) {
	if expr == nil {
		return cty.NullVal(cty.DynamicPseudoType), nil
	}
	_, native := expr.(hclsyntax.Expression) // a JSON body's traversals are found anew each time (travCache)
	ctx, diags := s.context(s.mi.ev.travs.variables(expr), lookup, m, native)
	if diags.HasErrors() {
		return failed(cty.DynamicPseudoType), diags
	}
	v, ds := expr.Value(ctx)
	if ds.HasErrors() {
		return failed(cty.DynamicPseudoType), append(diags, ds...)
	}
	return v, append(diags, ds...)
}

// context is the evaluation context of traversals travs in s: the
// values they name (and only those), the functions of s's module. keep
// says travs is the same slice each time for the same expression (the
// travCache's, or an Expr's own), so the constant var and local objects
// built may be kept by it (constRoots).
func (s scope) context(travs []hcl.Traversal, lookup value.Lookup, m memo, keep bool) (*hcl.EvalContext, hcl.Diagnostics) {
	if len(travs) == 0 {
		// A literal (most arguments): nothing to look up or build. hcl
		// writes only to the child contexts it makes, never to this one.
		return &hcl.EvalContext{Variables: noVariables, Functions: s.mi.ev.functions(applying(lookup))}, nil
	}
	var diags hcl.Diagnostics
	mi := s.mi
	vars := map[string]cty.Value{}
	objs := map[string]map[string]cty.Value{} // root → attribute → value, built as met
	set := func(root, attr string, v cty.Value) {
		if objs[root] == nil {
			objs[root] = map[string]cty.Value{}
		}
		objs[root][attr] = v
	}
	has := func(root, attr string) bool { _, ok := objs[root][attr]; return ok }
	attrsUsed := attrNames(travs)
	// var and local: the object built before when every value in it is
	// constant, or built here, and kept when it is (constRoots).
	cached := map[string]bool{}
	varying := map[string]bool{} // a value read was not constant, or not declared
	if len(travs) > 0 && keep {
		for _, root := range [...]string{"var", "local"} {
			if v, ok := mi.consts.get(travs, root); ok {
				vars[root], cached[root] = v, true
			}
		}
	}
	for _, t := range travs {
		if _, d := s.checkRef(t); d != nil {
			diags = append(diags, d)
			continue
		}
		root := t.RootName()
		switch root {
		case "var", "local":
			name, ok := stepName(t, 1)
			if !ok || cached[root] || has(root, name) {
				continue
			}
			pool := mi.vars
			if root == "local" {
				pool = mi.locals
			}
			n := pool[name]
			if n == nil {
				diags = append(diags, undeclared(root, name, t))
				varying[root] = true
				continue
			}
			v, ds := n.value(lookup, m)
			diags = append(diags, ds...)
			if !n.constant || ds.HasErrors() {
				varying[root] = true
			}
			set(root, name, v)
		case "module":
			name, ok := stepName(t, 1)
			mi.warnDeprecatedOutput(name, t)
			if !ok || has(root, name) {
				continue
			}
			v, ds := mi.callValue(name, t, lookup, m, outputsRead(travs, name), instancesRead(travs, name))
			diags = append(diags, ds...)
			set(root, name, v)
		case "data", "resource":
			// resource.TYPE.NAME is OpenTofu's other name for TYPE.NAME
			typ, _ := stepName(t, 1)
			name, _ := stepName(t, 2)
			key := typ + "." + name
			if has(root, key) {
				continue
			}
			rkey := key
			if root == "data" {
				rkey = "data." + key
			}
			v, ds := mi.resourceValue(rkey, t, lookup, attrsUsed[rkey])
			if root == "resource" && s.configured {
				v = mi.configuredValue(rkey, v, attrsUsed[rkey])
			}
			diags = append(diags, ds...)
			set(root, key, v)
		case "count":
			vars["count"] = cty.ObjectVal(map[string]cty.Value{"index": cty.NumberIntVal(int64(s.key.index))})
		case "each":
			ev, ds := s.key.eachValue(lookup, m)
			diags = append(diags, ds...)
			key := cty.StringVal(s.key.key)
			if s.key.numKey {
				key = cty.NumberIntVal(int64(s.key.index))
			}
			vars["each"] = cty.ObjectVal(map[string]cty.Value{"key": key, "value": ev})
		case "path":
			vars["path"] = cty.ObjectVal(map[string]cty.Value{
				"module": cty.StringVal(mi.modulePath()),
				"root":   cty.StringVal("."),
				"cwd":    cty.StringVal(filepath.ToSlash(mi.ev.rootDir())),
			})
		case "terraform", "tofu":
			vars[root] = cty.ObjectVal(map[string]cty.Value{"workspace": cty.StringVal(mi.ev.in.workspace())})
		case "self":
			vars["self"] = instanceObject(s.self, lookup, attrsUsed["self"], false)
		default:
			name, _ := stepName(t, 1)
			key := root + "." + name // declared: checkRef
			if has(root, name) {
				continue
			}
			v, ds := mi.resourceValue(key, t, lookup, attrsUsed[key])
			if s.configured {
				v = mi.configuredValue(key, v, attrsUsed[key])
			}
			diags = append(diags, ds...)
			set(root, name, v)
		}
	}
	for root, attrs := range objs {
		if root == "data" || root == "resource" {
			byType := map[string]map[string]cty.Value{}
			for key, v := range attrs {
				typ, name := splitKey(key)
				if byType[typ] == nil {
					byType[typ] = map[string]cty.Value{}
				}
				byType[typ][name] = v
			}
			types := map[string]cty.Value{}
			for typ, names := range byType {
				types[typ] = cty.ObjectVal(names)
			}
			vars[root] = cty.ObjectVal(types)
			continue
		}
		vars[root] = cty.ObjectVal(attrs)
		if (root == "var" || root == "local") && !varying[root] && keep {
			mi.consts.put(travs, root, vars[root])
		}
	}
	return &hcl.EvalContext{Variables: vars, Functions: mi.ev.functions(applying(lookup))}, diags
}

// noVariables are the variables of a context whose expression reads
// none: shared, never written.
var noVariables = map[string]cty.Value{}

// applying reports whether lookup is apply's (value.Applying).
func applying(lookup value.Lookup) bool {
	if lookup == nil {
		return false
	}
	_, ok := lookup(value.Applying)
	return ok
}

// moduleDisplay names the module mi is an instance of as OpenTofu's
// errors about its configuration do: "the root module", or its calls
// without instance keys (module.net.module.sub).
func (mi *modInst) moduleDisplay() string {
	if mi.parent == nil {
		return "the root module"
	}
	var calls []string
	for m := mi; m.parent != nil; m = m.parent {
		calls = append(calls, "module."+m.call.Name)
	}
	slices.Reverse(calls)
	return strings.Join(calls, ".")
}

func splitKey(key string) (string, string) {
	for i := len(key) - 1; i >= 0; i-- {
		if key[i] == '.' {
			return key[:i], key[i+1:]
		}
	}
	return key, ""
}

// stepName is the name of t's i-th step, an attribute.
func stepName(t hcl.Traversal, i int) (string, bool) {
	if i >= len(t) {
		return "", false
	}
	switch st := t[i].(type) {
	case hcl.TraverseAttr:
		return st.Name, true
	case hcl.TraverseIndex:
		if st.Key.Type() == cty.String && st.Key.IsKnown() && !st.Key.IsNull() {
			return st.Key.AsString(), true
		}
	}
	return "", false
}

// outputsRead are the outputs of module call name that travs read by
// name; nil when one reads the call's instances whole.
func outputsRead(travs []hcl.Traversal, name string) map[string]bool {
	out := map[string]bool{}
	for _, t := range travs {
		if t.RootName() != "module" {
			continue
		}
		if n, ok := stepName(t, 1); !ok || n != name {
			continue
		}
		rest := t[2:]
		if len(rest) > 0 {
			if _, isIndex := rest[0].(hcl.TraverseIndex); isIndex {
				rest = rest[1:]
			}
		}
		o, ok := stepName(rest, 0)
		if !ok {
			return nil
		}
		out[o] = true
	}
	return out
}

// attrNames are the names of the attributes travs read of each resource
// (by its key, TYPE.NAME or data.TYPE.NAME, and "self"), past the steps
// naming it: one read whole (a splat) gets them, null where state left
// them out. An attribute read of one object is not another's.
func attrNames(travs []hcl.Traversal) map[string][]string {
	var out map[string][]string
	for _, t := range travs {
		var key string
		from := 2 // TYPE.NAME.attr
		switch root := t.RootName(); root {
		case "var", "local", "module", "path", "terraform", "tofu", "each", "count":
			continue // no instance's attributes
		case "data":
			typ, _ := stepName(t, 1)
			name, _ := stepName(t, 2)
			key, from = "data."+typ+"."+name, 3
		case "resource": // resource.TYPE.NAME
			typ, _ := stepName(t, 1)
			name, _ := stepName(t, 2)
			key, from = typ+"."+name, 3
		case "self":
			key, from = "self", 1
		default:
			name, _ := stepName(t, 1)
			key = root + "." + name
		}
		for i := from; i < len(t); i++ {
			if a, ok := t[i].(hcl.TraverseAttr); ok {
				if out == nil {
					out = map[string][]string{}
				}
				out[key] = append(out[key], a.Name)
			}
		}
	}
	for key, names := range out {
		slices.Sort(names)
		out[key] = slices.Compact(names)
	}
	return out
}

func undeclared(root, name string, t hcl.Traversal) *hcl.Diagnostic {
	if root == "var" {
		return &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Reference to undeclared input variable",
			Detail:   fmt.Sprintf("An input variable with the name %q has not been declared. This variable can be declared with a variable %q {} block.", name, name),
			Subject:  t.SourceRange().Ptr(),
		}
	}
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Reference to undeclared local value",
		Detail:   fmt.Sprintf("A local value with the name %q has not been declared.", name),
		Subject:  t.SourceRange().Ptr(),
	}
}

// instanceObject is what an expression reads of the resource instance
// at addr: its attributes as lookup knows them (unknown when not), the
// attribute names want null where missing; kyku says it is of a Kyku
// type, whose attributes are read in snake case.
func instanceObject(addr string, lookup value.Lookup, want []string, kyku bool) cty.Value {
	if lookup == nil {
		return cty.DynamicVal
	}
	got, ok := lookup(value.Ref{Resource: addr, Attr: value.AllAttrs})
	if !ok {
		return cty.DynamicVal
	}
	vals, isMap := got.(map[string]any)
	if !isMap {
		return cty.DynamicVal
	}
	if kyku {
		snaked := make(map[string]any, len(vals))
		for k, v := range vals {
			snaked[snake(k)] = v
		}
		vals = snaked
		return objectWith(vals, want)
	}
	return typedObject(objectWith(vals, want), addr, lookup)
}

// warnDeprecatedOutput warns, once for t, that t reads an output of module
// call name that its module marks deprecated, as OpenTofu warns of a
// value derived from it.
func (mi *modInst) warnDeprecatedOutput(name string, t hcl.Traversal) {
	child := mi.mod.Children[name]
	if child == nil {
		return
	}
	step := 2
	if len(t) > 2 {
		if _, idx := t[2].(hcl.TraverseIndex); idx {
			step = 3 // module.NAME[KEY].OUTPUT
		}
	}
	out, ok := stepName(t, step)
	if !ok {
		return
	}
	o := child.Outputs[out]
	if o == nil || o.Deprecated == "" {
		return
	}
	call := mi.prefix() + "module." + name
	if step == 3 { // the instance's address, as instanceAddr writes it
		switch k := t[2].(hcl.TraverseIndex).Key; {
		case !k.IsKnown() || k.IsNull():
		case k.Type() == cty.String:
			call += instKey{rep: eached, key: k.AsString()}.suffix()
		case k.Type() == cty.Number:
			if n, acc := k.AsBigFloat().Int64(); acc == big.Exact {
				call += instKey{rep: counted, index: int(n)}.suffix()
			}
		}
	}
	by := call + "." + out
	mi.ev.warnOnce(by, &hcl.Diagnostic{
		Severity: hcl.DiagWarning,
		Summary:  "Value derived from a deprecated source",
		Detail:   fmt.Sprintf("This value is derived from %s, which is deprecated with the following message:\n\n%s", by, o.Deprecated),
		Subject:  t.SourceRange().Ptr(),
	})
}
