package tfconfig

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/lang/marks"
	"github.com/kyku/action/internal/value"
)

// moved, import and removed blocks, onto Kyku's moved and import entries
// and forgotten addresses.

// movesAndImports adds the moved, import and removed blocks of mi (and
// of the modules it calls) to cfg, their addresses made absolute.
func (ev *evaluator) movesAndImports(mi *modInst, cfg *config.Config) {
	declared := map[string]bool{}
	for _, r := range cfg.Resources {
		declared[r.Name] = true
	}
	ev.moves(mi, cfg, declared)
	for _, im := range mi.mod.Imports {
		ev.imports(mi, im, cfg, declared)
	}
}

func (ev *evaluator) moves(mi *modInst, cfg *config.Config, declared map[string]bool) {
	for _, m := range mi.mod.Moved {
		from, ok1 := traversalAddr(m.From, &ev.diags)
		to, ok2 := traversalAddr(m.To, &ev.diags)
		if !ok1 || !ok2 {
			continue
		}
		from, to = mi.prefix()+from, mi.prefix()+to
		if from == to {
			ev.diags = append(ev.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Redundant move statement",
				Detail:   fmt.Sprintf("This statement declares a move from %s to the same address, which is the same as not declaring this move at all.", from),
				Subject:  m.DeclRange.Ptr(),
			})
			continue
		}
		if strings.HasPrefix(to, "module.") && isModuleAddr(to) {
			// A module moved: each of its resources now in the
			// configuration, from where it was.
			for _, r := range cfg.Resources {
				if rest, ok := strings.CutPrefix(r.Name, to); ok && (strings.HasPrefix(rest, ".") || strings.HasPrefix(rest, "[")) && !r.Data {
					cfg.Moved = append(cfg.Moved, &config.Moved{From: from + rest, To: r.Name, Pos: pos(m.DeclRange)})
				}
			}
			continue
		}
		if declared[from] {
			ev.diags = append(ev.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Moved object still exists",
				Detail:   fmt.Sprintf("This statement declares a move from %s, but that resource instance is still declared in the configuration.\n\nChange your configuration so that this instance will be declared as %s instead.", from, to),
				Subject:  m.DeclRange.Ptr(),
			})
			continue
		}
		cfg.Moved = append(cfg.Moved, &config.Moved{From: from, To: to, Pos: pos(m.DeclRange)})
	}
	for _, r := range mi.mod.Removed {
		from, ok := traversalAddr(r.From, &ev.diags)
		if !ok {
			continue
		}
		from = mi.prefix() + from
		for name := range declared {
			if value.Within(name, from) {
				ev.diags = append(ev.diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Removed resource block still exists",
					Detail:   fmt.Sprintf("This statement declares that %s was removed, but it is still declared in configuration.", from),
					Subject:  r.DeclRange.Ptr(),
				})
				break
			}
		}
		if !r.Destroy {
			cfg.Forget = append(cfg.Forget, from)
		} else {
			cfg.RemovedDestroy = append(cfg.RemovedDestroy, from)
		}
	}
	for _, name := range sortedKeys(mi.mod.Calls) {
		for _, child := range mi.expandCall(name).children {
			ev.moves(child, cfg, declared)
		}
	}
}

// isModuleAddr reports whether addr names a module (instance), not a
// resource in one: its last step is module.NAME or an index of it.
func isModuleAddr(addr string) bool {
	a, ok := value.ParseAddress(addr)
	if !ok {
		return false
	}
	parts := strings.Split(a.Name, ".")
	return len(parts) >= 2 && parts[len(parts)-2] == "module"
}

// imports adds an import block's entries: one, or one per for_each
// element.
func (ev *evaluator) imports(mi *modInst, im *Import, cfg *config.Config, declared map[string]bool) {
	keys := []instKey{{}}
	if im.ForEach != nil {
		v, diags := scope{mi: mi}.eval(im.ForEach, ev.in.Known, memo{})
		ev.diags = append(ev.diags, diags...)
		if diags.HasErrors() {
			return
		}
		v, _ = v.Unmark()
		if ev.in.Validating && !v.IsWhollyKnown() {
			return // known once the variables are: checked at plan
		}
		if ev.partial && !v.IsWhollyKnown() {
			ev.pending = true // it may read a data source not read yet
			return
		}
		if !v.IsWhollyKnown() || v.IsNull() || !(v.CanIterateElements()) {
			ev.diags = append(ev.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid for_each argument",
				Detail:   "The for_each argument of an import block must be a map, set or tuple known before planning.",
				Subject:  im.ForEach.Range().Ptr(),
			})
			return
		}
		keys = nil
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			key := instKey{rep: eached, value: e}
			switch {
			case v.Type().IsSetType() && e.Type() == cty.String:
				key.key = e.AsString()
			case k.Type() == cty.String:
				key.key = k.AsString()
			case k.Type() == cty.Number: // a list's or tuple's index: each.key is a number, as in OpenTofu
				n, _ := k.AsBigFloat().Int64()
				key.key, key.index, key.numKey = strconv.FormatInt(n, 10), int(n), true
			}
			keys = append(keys, key)
		}
	}
	for _, k := range keys {
		sc := scope{mi: mi, key: k}
		to, ok := ev.exprAddr(sc, im.To)
		if !ok {
			continue
		}
		to = mi.prefix() + to
		// The id reads what is known before planning, as count does:
		// state, data sources read, configured arguments; a plan that
		// changes what it read is refused (config.CountRead).
		idScope := scope{mi: mi, key: k, configured: true}
		idVal, diags := idScope.eval(im.ID, ev.in.Known, memo{})
		ev.diags = append(ev.diags, diags...)
		if diags.HasErrors() {
			continue
		}
		if !idVal.IsWhollyKnown() && (ev.partial || ev.in.Validating) {
			ev.pending = ev.pending || ev.partial // it may read a data source not read yet
			continue
		}
		if refs := mi.readAtPlan(idScope.refsOf(im.ID.Variables())); len(refs) > 0 {
			ev.countRead("import to "+to, "id", im.ID, refs)
		}
		if detail := importIDProblem(idVal); detail != "" {
			ev.diags = append(ev.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid import id argument",
				Detail:   detail,
				Subject:  im.ID.Range().Ptr(),
			})
			continue
		}
		idVal, _ = convert.Convert(idVal, cty.String) // a number is its text, as OpenTofu takes it
		idVal, _ = idVal.Unmark()
		if !declared[to] {
			ev.diags = append(ev.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Configuration for import target does not exist",
				Detail:   fmt.Sprintf("The configuration for the given import %s does not exist. All target instances must have an associated configuration to be imported.", to),
				Subject:  im.DeclRange.Ptr(), // the block, as OpenTofu says it
			})
			continue
		}
		cfg.Imports = append(cfg.Imports, &config.Import{To: to, ID: idVal.AsString(), Pos: pos(im.DeclRange)})
	}
}

// traversalAddr is the address a moved or removed block's traversal
// names (indexes as they are written).
func traversalAddr(t hcl.Traversal, diags *hcl.Diagnostics) (string, bool) {
	var b strings.Builder
	for i, st := range t {
		switch s := st.(type) {
		case hcl.TraverseRoot:
			b.WriteString(s.Name)
		case hcl.TraverseAttr:
			b.WriteString("." + s.Name)
		case hcl.TraverseIndex:
			b.WriteString(indexText(s.Key))
		default:
			*diags = append(*diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid address", Detail: "A resource or module address is expected here.", Subject: t[i].SourceRange().Ptr()})
			return "", false
		}
	}
	return b.String(), true
}

func indexText(k cty.Value) string {
	if k.Type() == cty.Number {
		n, acc := k.AsBigFloat().Int64()
		if acc == big.Exact {
			return "[" + strconv.FormatInt(n, 10) + "]"
		}
	}
	if k.Type() == cty.String {
		return "[" + strconv.Quote(k.AsString()) + "]"
	}
	return "[?]"
}

// exprAddr is the address an import block's to names, its index
// expressions evaluated in sc (to = aws_x.a[each.key]).
func (ev *evaluator) exprAddr(sc scope, expr hcl.Expression) (string, bool) {
	bad := func() (string, bool) {
		ev.diags = append(ev.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid import address", Detail: "The to argument must be a resource instance address.", Subject: expr.Range().Ptr()})
		return "", false
	}
	switch e := expr.(type) {
	case *hclsyntax.ScopeTraversalExpr:
		return traversalAddr(e.Traversal, &ev.diags)
	case *hclsyntax.IndexExpr:
		coll, ok := ev.exprAddr(sc, e.Collection)
		if !ok {
			return "", false
		}
		k, diags := sc.eval(e.Key, nil, memo{})
		ev.diags = append(ev.diags, diags...)
		if diags.HasErrors() {
			return "", false
		}
		k, _ = k.Unmark()
		if !k.IsKnown() || k.IsNull() {
			return bad()
		}
		return coll + indexText(k), true
	case *hclsyntax.RelativeTraversalExpr:
		src, ok := ev.exprAddr(sc, e.Source)
		if !ok {
			return "", false
		}
		rest, ok := traversalAddr(append(hcl.Traversal{hcl.TraverseRoot{}}, e.Traversal...), &ev.diags)
		return src + rest, ok
	}
	return bad()
}

// triggers are the resource instances (and attributes) r's
// replace_triggered_by names, in scope sc (count.index and each.key
// allowed in their indexes).
func (ev *evaluator) triggers(sc scope, r *Resource) []config.Trigger {
	var out []config.Trigger
	for _, expr := range r.ReplaceTriggeredBy {
		addr, ok := ev.exprAddr(sc, expr)
		if !ok {
			continue
		}
		key, rest, declared := resourceKeyOf(sc.mi, addr)
		if key != "" && !declared {
			ev.diags = append(ev.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Undeclared resource in replace_triggered_by",
				Detail:   fmt.Sprintf("Resource %s refers to %s in replace_triggered_by, but it is not declared in this module.", r.Key(), key),
				Subject:  expr.Range().Ptr(),
			})
			continue
		}
		if !declared {
			ev.diags = append(ev.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid replace_triggered_by expression",
				Detail:   "Only resources, count.index, and each.key may be used in replace_triggered_by.",
				Subject:  expr.Range().Ptr(),
			})
			continue
		}
		path := triggerPath(sc.mi, key, rest)
		for _, ref := range sc.mi.resourceRefs(key, rest) {
			t := config.Trigger{Resource: ref.Resource}
			if ref.Attr != value.AllAttrs {
				t.Attr, t.Path = ref.Attr, path
			}
			out = append(out, t)
		}
	}
	return out
}

// triggerPath is the path a replace_triggered_by entry names inside the
// attribute it names (rest follows the resource's key: its instance
// index, the attribute, then the path), in value.Ref's Path syntax; ""
// for the whole attribute. OpenTofu compares the value there.
func triggerPath(mi *modInst, key string, rest hcl.Traversal) string {
	e := mi.expandResource(key)
	if e.failed {
		return ""
	}
	_, after := pick(e, e.keys, rest)
	if len(after) < 2 {
		return ""
	}
	return literalPath(after[1:])
}

// literalPath is what steps name literally inside an attribute, in
// value.Ref's Path syntax ("" for nothing): a computed index ends it,
// and a step that syntax cannot write leaves the value holding it.
func literalPath(steps hcl.Traversal) string {
	var path cty.Path
steps:
	for _, st := range steps {
		switch st := st.(type) {
		case hcl.TraverseAttr:
			path = path.GetAttr(st.Name)
		case hcl.TraverseIndex:
			if !st.Key.IsKnown() || st.Key.IsNull() {
				break steps
			}
			path = path.Index(st.Key)
		default:
			break steps
		}
	}
	for len(path) > 0 {
		if p, ok := refPath(path); ok {
			return p
		}
		path = path[:len(path)-1] // a step Ref's syntax cannot write: the value holding it
	}
	return ""
}

// resourceKeyOf finds the resource an address in mi starts with: its
// key ("type.name", "data.type.name"; "" for an address naming no
// resource), the traversal of what follows the key, and whether mi
// declares it.
func resourceKeyOf(mi *modInst, addr string) (string, hcl.Traversal, bool) {
	t, diags := hclsyntax.ParseTraversalAbs([]byte(addr), "", hcl.Pos{Line: 1, Column: 1})
	if diags.HasErrors() || len(t) < 2 {
		return "", nil, false
	}
	root := t.RootName()
	n := 2
	switch root {
	case "var", "local", "module", "count", "each", "path", "terraform", "tofu", "self", "resource":
		return "", nil, false
	case "data":
		n = 3
	}
	parts := []string{root}
	for i := 1; i < n; i++ {
		name, ok := stepName(t, i)
		if !ok {
			return "", nil, false
		}
		parts = append(parts, name)
	}
	key := strings.Join(parts, ".")
	return key, t[n:], mi.mod.Resources[key] != nil
}

// importIDProblem says what OpenTofu says of an import block's id value
// it cannot import by ("" when it can): null, not known before planning,
// sensitive (Kyku would show it in the plan), not a string (a number is
// one), or empty.
func importIDProblem(v cty.Value) string {
	switch {
	case v.IsNull():
		return "The import id cannot be null."
	case !v.IsWhollyKnown():
		return `The import block "id" argument depends on resource attributes that cannot be determined until apply, so OpenTofu cannot plan to import this resource.`
	case marks.Contains(v, marks.Sensitive):
		return "The import id cannot be sensitive."
	}
	s, err := convert.Convert(v, cty.String)
	switch {
	case err != nil:
		return fmt.Sprintf("The import ID value is unsuitable: %s.", convertError(err))
	case s.IsNull() || s.AsString() == "":
		return "The import ID must be a non-empty string."
	}
	return ""
}
