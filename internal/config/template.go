package config

import (
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"go.yaml.in/yaml/v3"

	"github.com/kyku/action/internal/lang/ctyvalue"
	"github.com/kyku/action/internal/lang/hcldiag"
	"github.com/kyku/action/internal/value"
)

// A kyku.yaml string holding "${" (or a "%{" directive) is an HCL
// template, OpenTofu's: parsed where the string is written, evaluated
// with OpenTofu's functions (internal/lang/funcs) and operators. Its
// names are YAML's: var.<name>, environment, count.index, each.key and
// each.value (known when the configuration is read) and resources by
// name (web, main-vpc, web[0], edge["a"], web[*]), whose bare name (no
// attribute) is their provider ID.
//
// What is known when the configuration is read is evaluated then: a
// template that is exactly one ${…} keeps the value's type, anything
// else is text. A template reading resources is kept for the engine,
// made of its parsed expression: a value.Template of its text and
// references when every resource it reads is read plainly
// ("${web[0].publicIp}", "db-${main-vpc}"), else an Expr
// (exprvalue.go). Either is evaluated when the engine resolves it, and
// the references it reads (reads.go) are what the graph, the checks and
// the providers' validation read, each where it is written.

// startPos is where the text of string scalar n starts in its file.
func startPos(n *yaml.Node) hcl.Pos {
	pos := hcl.Pos{Line: n.Line, Column: n.Column, Byte: 0}
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
		pos.Column++
	}
	if n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		pos.Line++ // a block scalar's text starts on the next line
	}
	return pos
}

// isTemplate reports whether s is a template to evaluate.
func isTemplate(s string) bool { return strings.Contains(s, "${") || strings.Contains(s, "%{") }

// subst evaluates the template in the string scalar n. It returns n when
// there is nothing to evaluate (or the template does not parse: the
// string is then reported as malformed where it is used), a new node
// otherwise, or nil after reporting a problem.
func (p *parser) subst(n *yaml.Node, path string) *yaml.Node {
	expr, diags := hclsyntax.ParseTemplate([]byte(n.Value), p.file, startPos(n))
	if diags.HasErrors() {
		p.malformed[n] = diags
		if v := p.secretIn(n.Value); v != nil {
			out := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: n.Value, Line: n.Line, Column: n.Column, Style: n.Style}
			p.done(out, n)
			p.malformed[out] = diags
			p.markSecret(out, v)
			return out
		}
		return n
	}
	t := &tmpl{p: p, n: n, path: path, expr: expr}
	if !t.analyze() {
		return nil
	}
	return t.result()
}

// secretIn is the first sensitive variable a malformed template names.
func (p *parser) secretIn(s string) *Variable {
	for _, r := range value.Refs(s) {
		if v := p.vars[r.Attr]; r.Resource == "var" && v != nil && v.Sensitive {
			return v
		}
	}
	return nil
}

// tmpl is one template being evaluated.
type tmpl struct {
	p          *parser
	n          *yaml.Node
	path       string
	expr       hclsyntax.Expression
	chains     []*chain             // the resources it reads
	known      map[string]cty.Value // var, environment, count, each: what it reads of them
	secret     *Variable            // the first sensitive variable it reads
	secretVars []string             // every sensitive variable it reads
}

// where is the owner (or the path) for messages.
func (t *tmpl) where() string { return t.p.where(t.path) }

// field is where and the property the template is written in, for
// HCL's messages: `resource "web": property "tags.name"`.
func (t *tmpl) field() string {
	w := t.where()
	if _, prop, ok := strings.Cut(t.path, ".properties."); ok && w != t.path {
		w += ": property " + strconv.Quote(prop)
	}
	return w
}

// report adds HCL's diagnostics, each prefixed with field.
func (t *tmpl) report(ds hcl.Diagnostics) {
	for _, d := range hcldiag.Convert(ds, t.p.source) {
		d.Message = t.field() + ": " + d.Message
		t.p.diags = append(t.p.diags, d)
	}
}

// analyze finds what the template reads, checks the names known when
// the configuration is read and binds them; false after reporting.
func (t *tmpl) analyze() bool {
	ok := true
	t.known = map[string]cty.Value{}
	for _, tr := range t.expr.Variables() {
		if !t.bind(tr) {
			ok = false
		}
	}
	if !ok {
		return false
	}
	hclsyntax.Walk(t.expr, &chainWalker{t: t})
	if t.p.scope.kind == exprScope && len(t.chains) > 0 {
		t.p.exprRefErr(t.n, t.chains[0].ref())
		return false
	}
	return true
}

// context is the evaluation context of what is known when the
// configuration is read.
func (t *tmpl) context() *hcl.EvalContext {
	return &hcl.EvalContext{Variables: t.known, Functions: t.p.functions(false)}
}

// result evaluates the template as far as the configuration knows it.
func (t *tmpl) result() *yaml.Node {
	if len(t.chains) == 0 {
		if te, ok := t.expr.(*hclsyntax.TemplateExpr); ok && len(te.Parts) > 1 {
			for _, part := range te.Parts {
				if !t.notCollection(part) {
					return nil
				}
			}
		}
		v, ds := t.expr.Value(t.context())
		if ds.HasErrors() {
			t.report(ds)
			return nil
		}
		x, _ := ctyvalue.Canonical(v)
		if !v.IsWhollyKnown() || (t.callsFunction() && value.HoldsTemplate(x)) {
			// An impure function's value is known when applying; text a
			// function gives holding "${" (a file's) is a value, not
			// Kyku's reference (a variable's may be one: "${var.vpc}").
			return t.exprNode()
		}
		return t.node(nodeOf(x, t.n), true)
	}
	if w, ok := t.expr.(*hclsyntax.TemplateWrapExpr); ok {
		if c := t.chainOf(w.Wrapped); c != nil {
			return t.whole(c)
		}
		return t.exprNode()
	}
	parts := []hclsyntax.Expression{t.expr}
	if te, ok := t.expr.(*hclsyntax.TemplateExpr); ok {
		parts = te.Parts
	}
	var b value.TemplateBuilder
	var at []refAt
	for _, part := range parts {
		c := t.chainOf(part)
		switch {
		case c != nil:
			if c.splat() {
				t.p.diags.Add(t.p.pos(t.n), "%s: %s must be the whole value, not part of the string %s", t.where(), c.ref().String(), t.p.quoted(t.n, t.n.Value))
				return nil
			}
			if !t.p.wholeResourceOK(t.n, c.address(), t.path) {
				return nil
			}
			b.Ref(c.ref())
			at = append(at, chainAt(c, c.ref()))
		case t.readsResources(part):
			return t.exprNode()
		default:
			s, ok := t.text(part)
			if !ok {
				return nil
			}
			if t.callsFunction() && value.HoldsTemplate(s) {
				return t.exprNode()
			}
			b.Text(s)
		}
	}
	return t.plainNode(b.Template(), at)
}

// plainNode is the node standing for tp, a template reading resources
// plainly: its text in Kyku's reference form, tp and at recorded for it.
func (t *tmpl) plainNode(tp *value.Template, at []refAt) *yaml.Node {
	out := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: tp.String(), Line: t.n.Line, Column: t.n.Column}
	t.recordReads(out, tp, at)
	return t.node(out, false)
}

// node records out, made of the template, as done, and sensitive when
// the template read a sensitive variable.
func (t *tmpl) node(out *yaml.Node, deep bool) *yaml.Node {
	if deep {
		t.p.markDone(out)
	} else {
		t.p.done(out, t.n)
	}
	if t.secret != nil {
		t.p.scope.tookSecret(t.secret)
		t.p.markSecret(out, t.secret)
	}
	return out
}

// text is part of a longer template as text: literal text, or a value
// known now (not a list or map).
func (t *tmpl) text(part hclsyntax.Expression) (string, bool) {
	if !t.notCollection(part) {
		return "", false
	}
	tw := &hclsyntax.TemplateExpr{Parts: []hclsyntax.Expression{part}, SrcRange: part.Range()}
	sv, ds := tw.Value(t.context())
	if ds.HasErrors() {
		t.report(ds)
		return "", false
	}
	x, _ := ctyvalue.Canonical(sv)
	return value.Text(x), true
}

// notCollection reports (and returns false for) a variable, or a path
// into one, holding a list or map written as part of a longer string,
// with Kyku's message; anything else is left to HCL's.
func (t *tmpl) notCollection(part hclsyntax.Expression) bool {
	st, ok := part.(*hclsyntax.ScopeTraversalExpr)
	if !ok {
		return true
	}
	v, ds := part.Value(t.context())
	if ds.HasErrors() {
		return true
	}
	ty := v.Type()
	if !(ty.IsTupleType() || ty.IsObjectType() || ty.IsListType() || ty.IsMapType() || ty.IsSetType()) {
		return true
	}
	r := traversalRef(st.Traversal)
	what := "list or map"
	if v := t.p.vars[r.Attr]; r.Resource == "var" && r.Path == "" && v != nil {
		what = v.Type.String()
	}
	t.p.diags.Add(t.p.pos(t.n), "%s: %s is a %s and cannot be part of a string; use %q as the whole value", t.where(), r.String(), what, r.String())
	return false
}

// whole is the node of a template that is exactly one plain resource
// reference: the reference itself (its instance written canonically),
// or for every instance (web[*]) the list of their references.
func (t *tmpl) whole(c *chain) *yaml.Node {
	a := c.address()
	r := c.ref()
	if a.Kind == value.AllIndex {
		tp := t.p.templates[a.Name]
		if tp == nil {
			t.p.diags.Add(t.p.pos(t.n), "%s: %s: reference to unknown resource %q%s", t.where(), r.String(), a.Name, didYouMean(a.Name, t.p.templateNames()))
			return nil
		}
		if tp.kind == plainScope {
			t.p.diags.Add(t.p.pos(t.n), "%s: %s: %q has no count or forEach; refer to it as %q", t.where(), r.String(), a.Name, value.Ref{Resource: a.Name, Attr: r.Attr, Path: r.Path}.String())
			return nil
		}
		out := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: t.n.Line, Column: t.n.Column}
		for _, inst := range tp.instances() {
			ir := value.Ref{Resource: inst, Attr: r.Attr, Path: r.Path}
			out.Content = append(out.Content, t.plainNode(value.RefTemplate(ir), []refAt{chainAt(c, ir)}))
		}
		return t.node(out, true)
	}
	if !t.p.wholeResourceOK(t.n, a, t.path) {
		return nil
	}
	return t.plainNode(value.RefTemplate(r), []refAt{chainAt(c, r)})
}

// exprNode is the node standing for the template as an Expr: its text,
// the Expr recorded for it (parser.exprs).
func (t *tmpl) exprNode() *yaml.Node {
	x := t.compile()
	if x == nil {
		return nil
	}
	out := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: t.n.Value, Line: t.n.Line, Column: t.n.Column}
	t.p.exprs[out] = x
	t.recordReads(out, nil, x.at)
	return t.node(out, false)
}

// readsResources reports whether e reads a resource.
func (t *tmpl) readsResources(e hclsyntax.Expression) bool {
	for _, c := range t.chains {
		if rangeWithin(c.node.Range(), e.Range()) {
			return true
		}
	}
	return false
}

func rangeWithin(in, out hcl.Range) bool {
	return in.Start.Byte >= out.Start.Byte && in.End.Byte <= out.End.Byte
}

// chainOf is the chain that is exactly e, or nil.
func (t *tmpl) chainOf(e hclsyntax.Expression) *chain {
	for _, c := range t.chains {
		if c.node == e {
			return c
		}
	}
	return nil
}

// bind checks one traversal of a name known when the configuration is
// read (with the messages Kyku gives for them) and binds its root.
func (t *tmpl) bind(tr hcl.Traversal) bool {
	p, n, sc := t.p, t.n, t.p.scope
	r := traversalRef(tr)
	switch tr.RootName() {
	case "var":
		v, ok := p.variableRef(n, r, t.path)
		if !ok {
			return false
		}
		if _, ok := p.readPath(n, r, t.path, v.Value, v.Sensitive); !ok {
			return false
		}
		vars := map[string]cty.Value{}
		if old, ok := t.known["var"]; ok {
			vars = old.AsValueMap()
		}
		vars[v.Name] = ctyvalue.FromCanonical(v.Value)
		t.known["var"] = cty.ObjectVal(vars)
		if v.Sensitive && t.secret == nil {
			t.secret = v
		}
		if v.Sensitive {
			t.secretVars = append(t.secretVars, v.Name)
		}
	case "environment":
		if r.Attr != "" {
			p.diags.Add(p.pos(n), "%s: %s: environment has no attributes; write ${environment}", t.where(), r.String())
			return false
		}
		t.known["environment"] = cty.StringVal(p.inputs.Environment)
	case "count", "each":
		if _, ok := p.instanceRef(n, r, t.path); !ok {
			return false
		}
		if sc.kind == countScope {
			t.known["count"] = cty.ObjectVal(map[string]cty.Value{"index": cty.NumberIntVal(int64(sc.index))})
		} else {
			t.known["each"] = cty.ObjectVal(map[string]cty.Value{"key": cty.StringVal(sc.key), "value": ctyvalue.FromCanonical(sc.each)})
		}
	}
	return true
}

// traversalRef is tr as Kyku's reference, for messages and paths: root,
// first attribute, the rest as its path.
func traversalRef(tr hcl.Traversal) value.Ref {
	r := value.Ref{Resource: tr.RootName()}
	rest := tr[1:]
	if len(rest) > 0 {
		if a, ok := rest[0].(hcl.TraverseAttr); ok {
			r.Attr = a.Name
			rest = rest[1:]
		}
	}
	var b strings.Builder
	for _, st := range rest {
		switch s := st.(type) {
		case hcl.TraverseAttr:
			b.WriteString(keyStep(s.Name))
		case hcl.TraverseIndex:
			b.WriteString(indexStep(s.Key))
		case hcl.TraverseSplat:
			b.WriteString("[*]")
		}
	}
	r.Path = b.String()
	return r
}

// keyStep is a path step reading key: .key, or ["key"] when key is not
// an identifier (value.Identifier).
func keyStep(key string) string {
	if !value.Identifier(key) {
		return "[" + strconv.Quote(key) + "]"
	}
	return "." + key
}

// indexStep is a path step of an index key: [N] or ["key"].
func indexStep(k cty.Value) string {
	if k.IsKnown() && !k.IsNull() {
		switch k.Type() {
		case cty.Number:
			if bf := k.AsBigFloat(); bf.IsInt() {
				i, _ := bf.Int64()
				return "[" + strconv.FormatInt(i, 10) + "]"
			}
		case cty.String:
			return "[" + strconv.Quote(k.AsString()) + "]"
		}
	}
	return "[?]"
}

// callsFunction reports whether the template calls a function.
func (t *tmpl) callsFunction() bool {
	calls := false
	hclsyntax.VisitAll(t.expr, func(n hclsyntax.Node) hcl.Diagnostics {
		if _, ok := n.(*hclsyntax.FunctionCallExpr); ok {
			calls = true
		}
		return nil
	})
	return calls
}
