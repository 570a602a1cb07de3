package tfconfig

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/lang/ctyvalue"
	"github.com/kyku/action/internal/lang/marks"
	"github.com/kyku/action/internal/value"
)

// Expand evaluates the module tree m (from Load) for one run: the root
// module's variables take their values from in, count, for_each and
// module calls become instances, and every instance of every resource
// and data source becomes a config.Resource named by its Terraform
// address, its arguments plain values or, when they read other
// resources, Exprs. Bad input is returned as a diag.Diagnostics with
// every problem found.
func Expand(m *Module, in Inputs) (*config.Config, error) {
	cfg, _, err := expand(m, in, false)
	return cfg, err
}

// ExpandPartial is Expand that leaves out, without an error, the
// instances of the resources and modules whose count or for_each reads
// values not known yet (pending says there are some, and cfg.Pending
// completes it): its configuration names the providers, the backend and
// the data sources to read before expanding again with more known
// (Inputs.Known).
func ExpandPartial(m *Module, in Inputs) (cfg *config.Config, pending bool, err error) {
	cfg, pending, err = expand(m, in, true)
	if err == nil && pending {
		cfg.Pending = completion(m, in, cfg)
	}
	return cfg, pending, err
}

// maxDataRounds bounds how many times a completion reads data sources
// (each round reads those whose configuration the last one made known).
const maxDataRounds = 10

// completion expands partial, m's partial expansion with in, again with
// what known holds and the data sources it can read now (as OpenTofu
// reads them at plan), until nothing is pending; what stays unknown is
// OpenTofu's error, after why a data source it reads failed.
func completion(m *Module, in Inputs, partial *config.Config) config.Expand {
	return func(ctx context.Context, known config.Known) (*config.Config, error) {
		in := in
		in.Known = known.Lookup
		cfg := partial
		for range maxDataRounds {
			n, err := known.ReadData(ctx, cfg)
			if err != nil {
				return nil, err
			}
			next, pending, err := expand(m, in, true)
			if err != nil {
				return nil, err
			}
			if !pending {
				return next, nil
			}
			cfg = next
			if n == 0 {
				break
			}
		}
		whole, _, err := expand(m, in, false) // its errors: what stays unknown
		var unknown diag.Diagnostics
		if failed := known.Failures(); len(failed) > 0 && errors.As(err, &unknown) {
			// What stays unknown may be so because a data source it reads
			// failed: said first, it is why.
			return nil, append(failed, unknown...)
		}
		if err != nil {
			// With the error, the expansion that leaves out what stays
			// undecided (config.Config.Undecided): a plan --target'ing
			// none of it plans without it, as OpenTofu's does.
			return cfg, err
		}
		return whole, nil
	}
}

func expand(m *Module, in Inputs, partial bool) (*config.Config, bool, error) {
	ev := &evaluator{in: in, files: maps.Clone(m.files), partial: partial}
	ev.fns = ev.newFunctions()
	if ev.files == nil {
		ev.files = map[string]*hcl.File{}
	}
	root := newModInst(ev, m, "", nil, nil, instKey{})
	ev.root = root
	ev.provFns = ev.providerFunctions(m)
	cfg := &config.Config{Provider: config.ProviderConfig{Name: "sim"}, Environment: in.Workspace, Files: allFiles(m), Terraform: true}
	ev.diags = append(ev.diags, m.loadWarnings...)
	ev.rootVariables(root, cfg)
	ev.providers(m, cfg)
	ev.kykuProvider(m, cfg)
	ev.backend(root, cfg)
	ev.walk(root, cfg)
	ev.movesAndImports(root, cfg)
	ev.outputs(root, cfg)
	ev.outputConditions(root, cfg)
	ev.checkAssertions(root, cfg)
	ev.prepareAll(root)
	if err := toDiag(ev.diags, ev.files).Err(); err != nil {
		return nil, ev.pending, err
	}
	ev.consolidateWarnings()
	cfg.Warnings = warnings(ev.diags, ev.files)
	slices.SortFunc(cfg.Resources, func(a, b *config.Resource) int { return value.CompareNames(a.Name, b.Name) })
	slices.SortFunc(ev.countReads, func(a, b *config.CountRead) int { return strings.Compare(a.By, b.By) })
	cfg.CountReads = ev.countReads
	if len(ev.undecided) > 0 {
		cfg.Undecided = slices.Sorted(slices.Values(ev.undecided))
		// What is left out read nothing this configuration plans.
		cfg.CountReads = slices.DeleteFunc(cfg.CountReads, func(cr *config.CountRead) bool {
			_, found := slices.BinarySearch(cfg.Undecided, cr.By)
			return found
		})
	}
	return cfg, ev.pending, nil
}

func allFiles(m *Module) []string {
	out := slices.Clone(m.Files)
	for _, name := range sortedKeys(m.Children) {
		out = append(out, allFiles(m.Children[name])...)
	}
	return out
}

// unknownRootVariables makes every root variable unknown, of its type
// (Inputs.Validating).
func (ev *evaluator) unknownRootVariables(root *modInst, cfg *config.Config) {
	for _, name := range sortedKeys(root.mod.Variables) {
		v := root.mod.Variables[name]
		val := cty.UnknownVal(v.Type.WithoutOptionalAttributesDeep())
		if v.Sensitive {
			val = val.Mark(marks.Sensitive)
		}
		root.vars[name] = &named{kind: "variable", name: name, sc: scope{mi: root}, rng: v.DeclRange, val: val, constant: true, state: prepared}
		cfg.Variables = append(cfg.Variables, &config.Variable{Name: name, Description: v.Description, Sensitive: v.Sensitive, Value: value.Unknown, Source: "unknown (validate)", Pos: pos(v.DeclRange)})
	}
}

// rootVariables gives the root module's variables their values.
func (ev *evaluator) rootVariables(root *modInst, cfg *config.Config) {
	if ev.in.Validating {
		ev.unknownRootVariables(root, cfg)
		return
	}
	raw := ev.rootValues(root.mod, ev.files)
	for _, name := range sortedKeys(root.mod.Variables) {
		v := root.mod.Variables[name]
		r, given := raw[name]
		// A variables file that could not be read may hold what is
		// missing: its errors are said alone, as OpenTofu says them.
		if !given && v.Required() && !ev.varsUnread {
			ev.diags = append(ev.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "No value for required variable",
				Detail:   fmt.Sprintf("The root module input variable %q is not set, and has no default value. Use a --var or --var-file command line argument to provide a value for this variable.", name),
				Subject:  v.DeclRange.Ptr(),
			})
		}
		val := failed(v.Type) // reported above
		if given || !v.Required() {
			var diags hcl.Diagnostics
			val, diags = finishVariable(v, "var."+name, r.val, fromText(name, r.source), r.rng)
			ev.diags = append(ev.diags, diags...)
		}
		root.vars[name] = &named{kind: "variable", name: name, sc: scope{mi: root}, rng: v.DeclRange, val: val, constant: true, state: prepared}
		if given && v.Deprecated != "" {
			ev.diags = append(ev.diags, &hcl.Diagnostic{
				Severity: hcl.DiagWarning,
				Summary:  "Deprecated variable used from the root module",
				Detail:   fmt.Sprintf("The root variable %q is deprecated with the following message: %s", name, v.Deprecated),
				Subject:  v.DeclRange.Ptr(),
			})
		}
		source := r.source
		if !given {
			source = "default"
		}
		canon, _ := canonical(val)
		cfg.Variables = append(cfg.Variables, &config.Variable{Name: name, Description: v.Description, Sensitive: v.Sensitive, Value: canon, Source: source, Pos: pos(v.DeclRange)})
		if v.Sensitive {
			cfg.Secrets = append(cfg.Secrets, value.AppendLeaves(nil, canon)...)
		}
	}
	for _, name := range sortedKeys(root.mod.Variables) {
		ev.validate(root, root.mod.Variables[name], nil)
	}
}

// validate checks a variable's validation rules, when its value is
// known. expr is the argument that set it (nil for the root's).
func (ev *evaluator) validate(mi *modInst, v *Variable, expr hcl.Expression) {
	n := mi.vars[v.Name]
	n.prepare()
	if !n.constant || !n.val.IsWhollyKnown() {
		return
	}
	for _, rule := range v.Validations {
		ok, msg, diags := scope{mi: mi}.check(rule, nil)
		ev.diags = append(ev.diags, diags...)
		if ok {
			continue
		}
		subject := v.DeclRange.Ptr()
		if expr != nil {
			subject = expr.Range().Ptr()
		}
		ev.diags = append(ev.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid value for variable",
			Detail:   fmt.Sprintf("%s\n\nThis was checked by the validation rule at %s.", msg, rule.DeclRange),
			Subject:  subject,
		})
	}
}

// childInst makes the instance of module mod that call's instance key
// runs from parent: its variables are the call's arguments, evaluated
// in parent.
func (ev *evaluator) childInst(mod *Module, addr string, parent *modInst, call *Call, key instKey) *modInst {
	mi := newModInst(ev, mod, addr, parent, call, key)
	for name, v := range mod.Variables {
		n := &named{kind: "variable", name: name, rng: v.DeclRange}
		if a, ok := call.Inputs[name]; ok {
			rng := a.Expr.Range()
			n.expr, n.sc = a.Expr, scope{mi: parent, key: key}
			n.finish = func(val cty.Value) (cty.Value, hcl.Diagnostics) {
				return finishVariable(v, "var."+name, val, "", &rng)
			}
		} else {
			n.sc = scope{mi: mi}
			val, diags := finishVariable(v, "var."+name, cty.NilVal, "", nil)
			if diags.HasErrors() {
				diags = hcl.Diagnostics{{
					Severity: hcl.DiagError,
					Summary:  "Missing required argument",
					Detail:   fmt.Sprintf("The argument %q is required, but no definition was found.", name),
					Subject:  call.DeclRange.Ptr(),
				}}
			}
			if key.rep == single || key.index == 0 || len(diags) == 0 {
				ev.diags = append(ev.diags, diags...)
			}
			n.val, n.constant, n.state = val, true, prepared
		}
		mi.vars[name] = n
	}
	return mi
}

// walk adds the instances of mi's resources, and of its calls' modules,
// to cfg.
func (ev *evaluator) walk(mi *modInst, cfg *config.Config) {
	for _, name := range sortedKeys(mi.mod.Calls) {
		c := mi.mod.Calls[name]
		child := mi.mod.Children[name]
		if child == nil {
			continue
		}
		for _, in := range sortedKeys(c.Inputs) {
			if v := child.Variables[in]; v != nil && v.Deprecated != "" {
				ev.warnOnce(in+"\n"+v.Deprecated, &hcl.Diagnostic{
					Severity: hcl.DiagWarning,
					Summary:  "Variable marked as deprecated by the module author",
					Detail:   fmt.Sprintf("Variable %q is marked as deprecated with the following message:\n%s", in, v.Deprecated),
					Subject:  c.Inputs[in].Expr.Range().Ptr(),
				})
			}
			if child.Variables[in] == nil {
				a := c.Inputs[in]
				ev.diags = append(ev.diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Unsupported argument",
					Detail:   fmt.Sprintf("An argument named %q is not expected here.", in),
					Subject:  a.NameRange.Ptr(),
				})
			}
		}
		e := mi.expandCall(name)
		for _, ci := range e.children {
			for _, vn := range sortedKeys(child.Variables) {
				ev.validate(ci, child.Variables[vn], exprOf(c.Inputs[vn]))
			}
			ev.walk(ci, cfg)
		}
	}
	for _, key := range sortedKeys(mi.mod.Resources) {
		r := mi.mod.Resources[key]
		e := mi.expandResource(key)
		for _, k := range e.keys {
			if cr := ev.instance(mi, r, k, cfg); cr != nil {
				cfg.Resources = append(cfg.Resources, cr)
			}
		}
		if len(e.keys) == 0 && !e.failed {
			// No instance evaluates its arguments: OpenTofu still checks
			// what they refer to.
			(scope{mi: mi, key: instKey{rep: e.rep}}).reportRefs(r.Body.traversals())
		}
	}
}

func exprOf(a *hcl.Attribute) hcl.Expression {
	if a == nil {
		return nil
	}
	return a.Expr
}

// instance is instance k of resource r of mi as Kyku's resource.
func (ev *evaluator) instance(mi *modInst, r *Resource, k instKey, cfg *config.Config) *config.Resource {
	addr := mi.instanceAddr(r.Key(), k)
	sc := scope{mi: mi, key: k}
	cr := &config.Resource{Name: addr, Type: r.Type, Data: r.Mode == Data, CheckNested: r.Check != "", Properties: map[string]any{}, Pos: pos(r.DeclRange)}
	kt, kyku := kykuType(r.Type)
	if !kyku {
		cr.Provider, cr.Type = ev.providerOf(mi, r)
	}
	ev.properties(sc, r, cr)
	if r.Mode == Managed {
		cr.CreateBeforeDestroy = r.CreateBeforeDestroy
		cr.SkipDestroy, _ = skipDestroy(r.Destroy) // refused when decoded unless a bool
		if r.PreventDestroy != nil {
			v, diags := sc.eval(r.PreventDestroy, nil, memo{})
			ev.diags = append(ev.diags, diags...)
			if !diags.HasErrors() {
				if v, _ = v.Unmark(); v.Type() == cty.Bool && v.IsKnown() && !v.IsNull() {
					cr.Protect = v.True()
				} else {
					ev.diags = append(ev.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid prevent_destroy value",
						Detail: "The prevent_destroy argument must be true or false, known before planning.", Subject: r.PreventDestroy.Range().Ptr()})
				}
			}
		}
		cr.IgnoreChanges = ignoredNames(r, cr)
		cr.ReplaceTriggeredBy = ev.triggers(sc, r)
	}
	if kyku {
		ev.kykuResource(r, kt, cr)
	}
	cr.DependsOn = ev.dependsOn(sc, r.DependsOn)
	if k.source != nil && r.Mode == Managed {
		// What its for_each reads, as OpenTofu's graph has it, whether or
		// not an argument reads each.value (a data source's read waits
		// only for what it reads and its own depends_on).
		for _, ref := range k.source.refs {
			cr.DependsOn = append(cr.DependsOn, ref.Resource)
		}
	}
	for _, t := range cr.ReplaceTriggeredBy {
		cr.DependsOn = append(cr.DependsOn, t.Resource)
	}
	ev.conditions(sc, r, addr, cr)
	for mod := mi; mod.call != nil; mod = mod.parent {
		cr.DependsOn = append(cr.DependsOn, ev.dependsOn(scope{mi: mod.parent, key: mod.key}, mod.call.DependsOn)...)
	}
	slices.Sort(cr.DependsOn)
	cr.DependsOn = slices.Compact(cr.DependsOn)
	return cr
}

// ignoredNames are what lifecycle ignore_changes names (all of the
// configured arguments for ignore_changes = all): an argument, or a part
// of one written after its name in value.Ref's Path syntax
// (tags["Name"]), which a Terraform provider's resource ignores alone
// (tfprovider); Kyku's types ignore the whole argument.
func ignoredNames(r *Resource, cr *config.Resource) []string {
	if r.IgnoreAll {
		return slices.Sorted(maps.Keys(cr.Properties))
	}
	var out []string
	for _, t := range r.IgnoreChanges {
		name := ""
		switch st := t[0].(type) {
		case hcl.TraverseAttr:
			name = st.Name
		case hcl.TraverseRoot:
			name = st.Name
		default:
			continue
		}
		out = append(out, name+literalPath(t[1:]))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// properties sets cr's properties from r's body in scope sc: a value
// that reads no resource is evaluated now, one that does becomes an
// Expr; those holding a sensitive value are listed in cr.Sensitive.
func (ev *evaluator) properties(sc scope, r *Resource, cr *config.Resource) {
	b := r.Body
	if b.Native == nil {
		for _, name := range sortedKeys(b.JSON) {
			a := b.JSON[name]
			ev.property(sc, cr, name, &Expr{sc: sc, attr: a.Expr, travs: a.Expr.Variables(), rng: a.Expr.Range()}, a.NameRange, false)
		}
		return
	}
	// An expression of a resource of the root module without count or
	// for_each is evaluated for one instance: its traversals are found,
	// not kept in the cache, which they would only grow.
	once := r.Count == nil && r.ForEach == nil && sc.mi.parent == nil
	for _, name := range sortedKeys(b.Native.Attributes) {
		a := b.Native.Attributes[name]
		e := Expr{sc: sc, attr: a.Expr, travs: ev.travs.variablesOnce(a.Expr, once), rng: a.Expr.Range()}
		ev.property(sc, cr, name, &e, a.NameRange, once)
	}
	if len(b.Native.Blocks) == 0 {
		return
	}
	sh := newShape()
	byType := map[string][]*hclsyntax.Block{}
	for _, blk := range b.Native.Blocks {
		sh.addBlock(blk)
		byType[blockType(blk)] = append(byType[blockType(blk)], blk)
	}
	cr.BlockProps = sortedKeys(byType)
	for _, typ := range cr.BlockProps {
		blocks := byType[typ]
		var travs []hcl.Traversal
		for _, blk := range blocks {
			travs = append(travs, bodyTraversals(&hclsyntax.Body{Blocks: hclsyntax.Blocks{blk}})...)
		}
		rng := blocks[0].Range()
		ev.property(sc, cr, typ, &Expr{sc: sc, blocks: blocks, typ: typ, shape: sh, travs: travs, rng: rng}, blocks[0].TypeRange, false)
	}
}

// property sets one property: its value now when it reads no resource,
// else the Expr (evaluated once now, with nothing known, for the errors
// that do not wait for values). once: its traversals are not kept in the
// cache (travCache.referencesOnce).
func (ev *evaluator) property(sc scope, cr *config.Resource, name string, e *Expr, at hcl.Range, once bool) {
	cr.PropPos.Set(name, pos(at))
	if e.attr != nil {
		e.refs = sc.refsOf(ev.travs.referencesOnce(e.attr, once))
	} else {
		e.refs = sc.refsOf(e.travs)
	}
	v, diags := e.value(nil)
	ev.diags = append(ev.diags, diags...)
	if diags.HasErrors() {
		return
	}
	if sensitiveIn(v) {
		cr.Sensitive = append(cr.Sensitive, name)
		if paths, ok := sensitiveWithin(v); ok {
			if cr.SensitiveWithin == nil {
				cr.SensitiveWithin = map[string][]string{}
			}
			cr.SensitiveWithin[name] = paths
		}
	}
	dynamicType(cr, name, v)
	if len(e.refs) == 0 && v.IsWhollyKnown() {
		canon, _ := canonical(v)
		if canon != nil {
			cr.Properties[name] = plain(canon)
		}
		return
	}
	kept := *e // e itself may be the caller's, on its stack: most are literals, not kept
	cr.Properties[name] = &kept
}

// dynamicType records in cr, for terraform_data's input (and so its
// output) and triggers_replace, the type of v, the argument's value as
// far as known at expansion, when it is wholly known: OpenTofu's state
// records it with the value (config.Resource.DynamicTypes).
func dynamicType(cr *config.Resource, name string, v cty.Value) {
	if !slices.Contains(cr.DynamicArgs(), name) || v.IsNull() || v.Type().HasDynamicTypes() {
		return
	}
	cr.DynamicTypes = config.WithDynamicType(cr.DynamicTypes, name, ctyvalue.TypeJSON(v.Type()))
}

// dependsOn are the resource instances a depends_on list names: a
// resource's every instance, a module call's every resource.
func (ev *evaluator) dependsOn(sc scope, travs []hcl.Traversal) []string {
	var out []string
	for _, t := range travs {
		rest, d := sc.checkRef(t)
		if d != nil {
			ev.diags = append(ev.diags, d)
			continue
		}
		if len(rest) > 0 {
			ev.diags = append(ev.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid depends_on reference",
				Detail:   "References in depends_on must be to a whole object (resource, etc), not to an attribute of an object.",
				Subject:  rest.SourceRange().Ptr(),
			})
			continue
		}
		switch kind := t.RootName(); kind {
		case "module":
			name, _ := stepName(t, 1)
			e := sc.mi.expandCall(name)
			children, _ := pick(e, e.children, t[2:])
			for _, c := range children {
				out = append(out, c.resourceAddrs()...)
			}
		case "var", "local":
			// What it reads: OpenTofu waits for those too.
			name, _ := stepName(t, 1)
			pool := sc.mi.vars
			if kind == "local" {
				pool = sc.mi.locals
			}
			if pool[name] == nil {
				ev.diags = append(ev.diags, undeclared(kind, name, t))
				continue
			}
			for _, ref := range sc.refsOf([]hcl.Traversal{t}) {
				out = append(out, ref.Resource)
			}
		case "count", "each", "path", "terraform", "tofu", "self":
			// nothing to wait for
		default: // a resource or data source
			for _, ref := range sc.refsOf([]hcl.Traversal{t}) {
				out = append(out, ref.Resource)
			}
		}
	}
	return out
}

// resourceAddrs are the addresses of every resource instance in mi and
// the modules it calls.
func (mi *modInst) resourceAddrs() []string {
	var out []string
	for _, key := range sortedKeys(mi.mod.Resources) {
		e := mi.expandResource(key)
		for _, k := range e.keys {
			out = append(out, mi.instanceAddr(key, k))
		}
	}
	for _, name := range sortedKeys(mi.mod.Calls) {
		for _, c := range mi.expandCall(name).children {
			out = append(out, c.resourceAddrs()...)
		}
	}
	return out
}

// prepareAll prepares every named value of mi and of the modules it
// calls: expressions are then evaluated from many goroutines, and read
// only what is prepared.
func (ev *evaluator) prepareAll(mi *modInst) {
	for _, pool := range []map[string]*named{mi.vars, mi.locals, mi.outputs} {
		for _, name := range sortedKeys(pool) {
			pool[name].prepare()
		}
	}
	for _, name := range sortedKeys(mi.mod.Calls) {
		for _, c := range mi.expandCall(name).children {
			ev.prepareAll(c)
		}
	}
}

// outputs are the root module's outputs: values, or Exprs when they
// read resources.
func (ev *evaluator) outputs(root *modInst, cfg *config.Config) {
	for _, name := range sortedKeys(root.mod.Outputs) {
		o := root.mod.Outputs[name]
		n := root.outputs[name]
		n.prepare()
		out := &config.Output{Name: name, Description: o.Description, Sensitive: o.Sensitive, Pos: pos(o.DeclRange)}
		if o.Expr != nil {
			out.Pos = pos(o.Expr.Range()) // what is said of its value is said there, as OpenTofu says it
		}
		if n.constant {
			if sensitiveIn(n.val) {
				out.Sensitive = true
				if !o.Sensitive {
					ev.diags = append(ev.diags, sensitiveOutput(o))
				}
			}
			canon, _ := canonical(n.val)
			out.Value = plain(canon)
			out.Type = ctyvalue.TypeJSON(n.val.Type())
		} else {
			e := &Expr{sc: n.sc, attr: o.Expr, travs: o.Expr.Variables(), refs: n.refs, rng: o.Expr.Range()}
			v, diags := e.value(nil)
			ev.diags = append(ev.diags, diags...)
			if sensitiveIn(v) && !o.Sensitive {
				ev.diags = append(ev.diags, sensitiveOutput(o))
			}
			out.Value = e
		}
		cfg.Outputs = append(cfg.Outputs, out)
	}
}

func sensitiveOutput(o *Output) *hcl.Diagnostic {
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Output refers to sensitive values",
		Detail: `To reduce the risk of accidentally exporting sensitive data that was intended to be only internal, OpenTofu requires that any root module output containing sensitive data be explicitly marked as sensitive, to confirm your intent.

If you do intend to export this data, annotate the output value as sensitive by adding the following argument:
    sensitive = true`,
		Subject: o.Expr.Range().Ptr(),
	}
}

// pos is where rng starts, as Kyku's diagnostics say.
func pos(rng hcl.Range) diag.Pos {
	return diag.Pos{File: rng.Filename, Line: rng.Start.Line, Col: rng.Start.Column}
}

// check evaluates a condition (validation, precondition, assertion) in
// s: ok, or the error message. An unknown condition passes.
func (s scope) check(rule *CheckRule, lookup value.Lookup) (bool, string, hcl.Diagnostics) {
	v, diags := s.eval(rule.Condition, lookup, memo{})
	if diags.HasErrors() {
		return true, "", diags
	}
	v, _ = v.Unmark()
	switch {
	case !v.IsKnown():
		return true, "", nil
	case v.IsNull() || v.Type() != cty.Bool:
		return true, "", hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Invalid condition result",
			Detail:   "Condition expression must return either true or false.",
			Subject:  rule.Condition.Range().Ptr(),
		}}
	case v.True():
		return true, "", nil
	}
	msgVal, ds := s.eval(rule.ErrorMessage, lookup, memo{})
	if ds.HasErrors() {
		return false, "Failed to evaluate condition error message.", nil
	}
	if sensitiveIn(msgVal) {
		return false, "The error message included a sensitive value, so it will not be displayed.", nil
	}
	msgVal, _ = msgVal.Unmark()
	if !msgVal.IsKnown() || msgVal.IsNull() || msgVal.Type() != cty.String {
		return false, "Failed to evaluate condition error message.", nil
	}
	return false, strings.TrimSpace(msgVal.AsString()), nil
}
