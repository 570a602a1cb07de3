package tfconfig

import (
	"fmt"
	"slices"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/kyku/action/internal/lang/marks"
	"github.com/kyku/action/internal/tfmodule"
)

// early evaluates a module call's source and version before anything is
// installed, as OpenTofu (1.8 and later) evaluates them statically: they
// may read the module's variables (the root's from Inputs; a child's from
// its call's arguments, evaluated the same way in the caller), its
// locals, path and terraform.workspace, and call functions; not a
// resource, a data source, a module's output, count or each, which are
// known only once the configuration is planned. What the install
// recorded is then compared with what the call says now, as for a
// literal source.
type early struct {
	ev *evaluator
	// insts are the module instances evaluated in, by module key (the
	// calls' names joined by "."), made when first needed; callers say,
	// by a child's key, which module and call run it.
	insts   map[string]*modInst
	callers map[string]earlyCaller
	// missing are the root variables with neither a value nor a default;
	// said asks each to be said once.
	missing map[string]bool
	said    map[string]bool
}

// earlyCaller is where a module is called from: the calling module, its
// path, and the call.
type earlyCaller struct {
	mod  *Module
	path []string
	call *Call
}

func newEarly(in Inputs) *early {
	ev := &evaluator{in: in, files: map[string]*hcl.File{}}
	ev.fns = ev.newFunctions()
	return &early{ev: ev, insts: map[string]*modInst{}, callers: map[string]earlyCaller{},
		missing: map[string]bool{}, said: map[string]bool{}}
}

// called records that call c of module m (at path) runs the module at
// path + c.Name.
func (e *early) called(m *Module, path []string, c *Call) {
	child := append(slices.Clone(path), c.Name)
	e.callers[tfmodule.Key(child)] = earlyCaller{mod: m, path: path, call: c}
}

// inst is the instance of module m at path that early evaluation reads
// from (nil: the module's caller was never recorded).
func (e *early) inst(m *Module, path []string) *modInst {
	key := tfmodule.Key(path)
	if mi := e.insts[key]; mi != nil && mi.mod == m {
		return mi
	}
	var mi *modInst
	if len(path) == 0 {
		mi = newModInst(e.ev, m, "", nil, nil, instKey{})
		e.ev.root = mi
		e.rootVariables(mi)
	} else {
		c, ok := e.callers[key]
		if !ok {
			return nil
		}
		parent := e.inst(c.mod, c.path)
		if parent == nil {
			return nil
		}
		mi = e.ev.childInst(m, moduleAddr(path), parent, c.call, instKey{})
	}
	e.insts[key] = mi
	return mi
}

// rootVariables gives the root module's variables their values, as for
// an expansion, except that one with no value is said missing only when
// a source or version reads it (OpenTofu's init asks for no other).
func (e *early) rootVariables(root *modInst) {
	raw := e.ev.rootValues(root.mod, e.ev.files)
	for name, v := range root.mod.Variables {
		r, given := raw[name]
		val := failed(v.Type)
		if !given && v.Required() {
			e.missing[name] = true
		} else {
			val, _ = finishVariable(v, "var."+name, r.val, fromText(name, r.source), r.rng)
		}
		root.vars[name] = &named{kind: "variable", name: name, sc: scope{mi: root}, rng: v.DeclRange, val: val, constant: true, state: prepared}
	}
	e.ev.diags = nil // an expansion says what is wrong with them, if it gets there
}

// resolve evaluates the source and version of call c of module m (at
// path) that are not literal, into c.Source and c.Version; on an error c
// keeps no source (the call is not followed).
func (e *early) resolve(m *Module, path []string, c *Call) hcl.Diagnostics {
	mi := e.inst(m, path)
	if mi == nil {
		return nil
	}
	var diags hcl.Diagnostics
	if c.VersionExpr != nil {
		v, ds := e.eval(mi, c.VersionExpr, "module."+c.Name+".version")
		diags = append(diags, ds...)
		if !ds.HasErrors() && !v.IsNull() {
			c.Version = v.AsString()
		}
	}
	if c.SourceExpr != nil {
		v, ds := e.eval(mi, c.SourceExpr, "module."+c.Name+".source")
		diags = append(diags, ds...)
		if !ds.HasErrors() && !v.IsNull() {
			c.Source = v.AsString()
		}
	}
	if diags.HasErrors() {
		c.Source = ""
	}
	return diags
}

// consts checks that the value of each variable of module m (at path)
// declared const = true is known before anything is installed, as
// OpenTofu 1.12 checks it: a root variable given or defaulted, a module's
// argument that reads only what a source may.
func (e *early) consts(m *Module, path []string) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, name := range sortedKeys(m.Variables) {
		v := m.Variables[name]
		if !v.Const {
			continue
		}
		mi := e.inst(m, path)
		if mi == nil {
			return nil
		}
		id := e.ident(mi, "var."+name)
		if mi.parent == nil {
			if e.missing[name] {
				diags = append(diags, e.noValue(v, id, "it is declared const = true, so its value is read")...)
			}
			continue
		}
		if a := mi.call.Inputs[name]; a != nil {
			diags = append(diags, e.follow(mi.parent, a.Expr, id, a.Expr.Range(), nil)...)
		}
	}
	return diags
}

// eval evaluates expr, what (module.NAME.source) of the module mi, to a
// string known now.
func (e *early) eval(mi *modInst, expr hcl.Expression, what string) (cty.Value, hcl.Diagnostics) {
	top := e.ident(mi, what)
	if diags := e.check(mi, expr, top, expr.Range(), []string{top}); diags.HasErrors() {
		return cty.NilVal, diags
	}
	n := len(e.ev.diags)
	v, diags := scope{mi: mi}.eval(expr, nil, memo{})
	// what evaluating the locals it reads said, then the expression's
	diags = append(slices.Clone(e.ev.diags[n:]), diags...)
	e.ev.diags = e.ev.diags[:n]
	if diags.HasErrors() {
		return cty.NilVal, diags
	}
	v, pvm := v.UnmarkDeepWithPaths()
	if slices.ContainsFunc(pvm, func(p cty.PathValueMarks) bool { return p.Marks.Has(marks.Sensitive) }) {
		return cty.NilVal, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Sensitive value not allowed",
			Detail:   fmt.Sprintf("Sensitive values, or values derived from sensitive values, cannot be used as %s.", top),
			Subject:  expr.Range().Ptr(),
		}}
	}
	s, err := convert.Convert(v, cty.String)
	switch {
	case err != nil:
		return cty.NilVal, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Unsuitable value type",
			Detail:   fmt.Sprintf("Unsuitable value: %s", convertError(err)),
			Subject:  expr.Range().Ptr(),
		}}
	case !s.IsKnown():
		return cty.NilVal, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Unknown value",
			Detail:   fmt.Sprintf("The value of %s must be known before anything is installed: it may read variables, locals and functions whose results are known then.", top),
			Subject:  expr.Range().Ptr(),
		}}
	}
	return s, nil
}

// noValue says, once (id is the variable's), that root variable v has no
// value, which early evaluation needs (why).
func (e *early) noValue(v *Variable, id, why string) hcl.Diagnostics {
	if e.said[id] {
		return nil
	}
	e.said[id] = true
	return hcl.Diagnostics{{
		Severity: hcl.DiagError,
		Summary:  "No value for required variable",
		Detail:   fmt.Sprintf("The root module input variable %q is not set, and has no default value; %s, before anything is installed. Use a --var or --var-file command line argument to provide a value for this variable.", v.Name, why),
		Subject:  v.DeclRange.Ptr(),
	}}
}

// ident names subject (var.x, local.y, module.z.source) of mi as
// OpenTofu's static evaluation does: "module.a.module.b:var.x".
func (e *early) ident(mi *modInst, subject string) string {
	if mi.addr == "" {
		return subject
	}
	return mi.addr + ":" + subject
}

// check refuses, in OpenTofu's words, what expr reads (in mi, for top,
// whose expression is at rng) that is not known before anything is
// installed, following variables to their callers and locals to their
// expressions; stack holds what is being checked (a cycle is refused).
func (e *early) check(mi *modInst, expr hcl.Expression, top string, rng hcl.Range, stack []string) hcl.Diagnostics {
	var diags hcl.Diagnostics
	unavailable := func(id string) {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Unable to compute static value",
			Detail:   fmt.Sprintf("%s depends on %s which is not available", top, id),
			Subject:  rng.Ptr(),
		})
	}
	for _, t := range expr.Variables() {
		root := t.RootName()
		name, _ := stepName(t, 1)
		switch root {
		case "path", "terraform", "tofu":
		case "var":
			v := mi.mod.Variables[name]
			if v == nil {
				continue // evaluating it says so
			}
			if v.ConstSet && !v.Const {
				diags = append(diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Unable to use variable in static context",
					Detail:   fmt.Sprintf("The variable %q cannot be used in a static context, because it is declared as \"const = false\".", name),
					Subject:  t.SourceRange().Ptr(),
				})
				continue
			}
			id := e.ident(mi, "var."+name)
			if mi.parent == nil {
				if !e.missing[name] {
					continue
				}
				diags = append(diags, e.noValue(v, id, "a module's source or version reads it")...)
				unavailable(id)
				continue
			}
			a := mi.call.Inputs[name]
			if a == nil {
				continue // its default, or the call lacks a required argument (the expansion says so)
			}
			if ds := e.follow(mi.parent, a.Expr, id, a.Expr.Range(), stack); ds.HasErrors() {
				diags = append(diags, ds...)
				unavailable(id)
			}
		case "local":
			l := mi.mod.Locals[name]
			if l == nil {
				continue // evaluating it says so
			}
			id := e.ident(mi, "local."+name)
			if ds := e.follow(mi, l.Expr, id, l.DeclRange, stack); ds.HasErrors() {
				diags = append(diags, ds...)
				unavailable(id)
			}
		case "module":
			ref := "module." + name
			if out, ok := stepName(t, 2); ok {
				ref += "." + out
			}
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Module output not supported in static context",
				Detail:   fmt.Sprintf("Unable to use %s in static context, which is required by %s", ref, top),
				Subject:  t.SourceRange().Ptr(),
			})
		default:
			ref := root + "." + name
			if root == "data" {
				n2, _ := stepName(t, 2)
				ref += "." + n2
			}
			if root == "self" {
				ref = "self"
			}
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Dynamic value in static context",
				Detail:   fmt.Sprintf("Unable to use %s in static context, which is required by %s", ref, top),
				Subject:  t.SourceRange().Ptr(),
			})
		}
	}
	return diags
}

// follow checks expr, which id (a variable's argument, a local) stands
// for, unless id is already being checked: a cycle.
func (e *early) follow(mi *modInst, expr hcl.Expression, id string, rng hcl.Range, stack []string) hcl.Diagnostics {
	if slices.Contains(stack, id) {
		return hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Circular reference",
			Detail:   fmt.Sprintf("%s is self referential", id),
			Subject:  rng.Ptr(),
		}}
	}
	return e.check(mi, expr, id, rng, append(slices.Clone(stack), id))
}

// EarlyCalls is a tfmodule.CallsFunc for `kyku init` and for finding
// what it installed: each module's calls, their source and version
// evaluated before anything is installed (early) with in. What is wrong
// with the rest of a module's files is left to loading the configuration
// to say.
func EarlyCalls(in Inputs) tfmodule.CallsFunc {
	l := newLoader(nil, in)
	return func(dir string, path []string) ([]tfmodule.Call, hcl.Diagnostics) {
		if len(path) == 0 {
			l.early = newEarly(in) // a walk of the tree begins
		}
		m := l.read(dir, path, nil)
		l.diags = nil
		var out []tfmodule.Call
		for _, name := range sortedKeys(m.Calls) {
			c := m.Calls[name]
			l.callsOf(m, path, c)
			if c.Source == "" {
				continue
			}
			tc := tfmodule.Call{Name: c.Name, Source: c.Source, Version: c.Version, HasVersion: c.Version != "",
				DeclRange: c.DeclRange, SourceRange: c.SourceRange, VersionRange: c.VersionRange}
			out = append(out, tc)
		}
		diags := l.diags
		l.diags = nil
		return out, diags
	}
}
