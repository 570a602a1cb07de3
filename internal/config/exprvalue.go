package config

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"

	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/lang/ctyvalue"
	"github.com/kyku/action/internal/lang/funcs"
	"github.com/kyku/action/internal/lang/hcldiag"
	"github.com/kyku/action/internal/value"
)

// Expr is a kyku.yaml template that computes with what resources hold
// (a function of an attribute, a conditional on one, a for expression
// over instances): the engine evaluates it when it resolves the
// property or output, with the same evaluator as a .tf file's
// expressions. What the configuration knew (variables, count.index,
// each) is bound in it already.
type Expr struct {
	expr  hclsyntax.Expression
	text  string
	pos   diag.Pos
	where string
	known map[string]cty.Value
	// secret are the sensitive variables in known: the description
	// leaves their values out (a digest of a short secret can be
	// guessed); the configuration's secrets hash covers them.
	secret []string
	roots  map[string]*rootRead // by resource name
	refs   []value.Ref
	at     []refAt // where each of refs is read
	fns    *funcs.Tables
	src    []byte
}

var _ value.Expr = (*Expr)(nil)

// rootRead is what an Expr reads of one resource.
type rootRead struct {
	t       *template           // nil: a resource without count or forEach (an auto-subnet's, too)
	objects bool                // read as objects (attributes, or whole)
	ids     bool                // read as provider IDs (its name bare)
	attrs   map[string][]string // instance → attributes read
	whole   map[string]bool     // instances read whole
}

// idRoot is the name under which a resource's provider IDs are bound:
// not one a template can write.
func idRoot(name string) string { return name + "#id" }

// compile makes the Expr of the template: its chains become what it
// reads, a bare one (a provider ID) read under idRoot.
func (t *tmpl) compile() *Expr {
	p := t.p
	x := &Expr{expr: t.expr, text: t.n.Value, pos: p.pos(t.n), where: t.field(), known: t.known, secret: t.secretVars, roots: map[string]*rootRead{}, fns: p.fns, src: p.sources[p.file]}
	seen := map[value.Ref]bool{}
	var c *chain
	add := func(r value.Ref) {
		if !seen[r] {
			seen[r] = true
			x.refs = append(x.refs, r)
			if r.Attr == value.AllAttrs {
				r.Attr = ""
			}
			x.at = append(x.at, chainAt(c, r))
		}
	}
	for _, c = range t.chains {
		rr := x.roots[c.name]
		if rr == nil {
			rr = &rootRead{t: p.templates[c.name], attrs: map[string][]string{}, whole: map[string]bool{}}
			x.roots[c.name] = rr
		}
		insts := []string{c.name}
		tp := rr.t
		if tp != nil && tp.kind == plainScope {
			tp = nil
		}
		whole := false
		switch {
		case c.inst.Kind == value.AllIndex && tp != nil:
			insts = tp.instances()
		case c.inst.Name != "":
			insts = []string{c.inst.String()}
		case tp != nil: // web of a resource with instances: every one, whole
			insts, whole = tp.instances(), true
		}
		switch {
		case whole:
			rr.objects = true
			for _, in := range insts {
				rr.whole[in] = true
				add(value.Ref{Resource: in, Attr: value.AllAttrs})
			}
		case c.attr == "":
			rr.ids = true
			c.root.Traversal = append(hcl.Traversal{hcl.TraverseRoot{Name: idRoot(c.name), SrcRange: c.root.Traversal[0].SourceRange()}}, c.root.Traversal[1:]...)
			for _, in := range insts {
				add(value.Ref{Resource: in})
			}
		default:
			rr.objects = true
			for _, in := range insts {
				if !slices.Contains(rr.attrs[in], c.attr) {
					rr.attrs[in] = append(rr.attrs[in], c.attr)
				}
				add(value.Ref{Resource: in, Attr: c.attr})
			}
		}
	}
	return x
}

// refText is what the Expr reads in Kyku's reference form, for the
// checks of references (each must name a resource and an output it has).
func (x *Expr) refText() string {
	var b strings.Builder
	for _, r := range x.refs {
		if r.Attr == value.AllAttrs {
			r.Attr = ""
		}
		b.WriteString(r.String())
	}
	return b.String()
}

// Refs are the resource instances the template reads.
func (x *Expr) Refs() []value.Ref { return x.refs }

// Eval evaluates the template, every resource it reads looked up.
func (x *Expr) Eval(lookup value.Lookup) (any, bool, error) {
	vars := maps.Clone(x.known)
	if vars == nil {
		vars = map[string]cty.Value{}
	}
	for name, rr := range x.roots {
		if rr.objects {
			vars[name] = rr.value(name, func(in string) cty.Value { return rr.object(in, lookup) })
		}
		if rr.ids {
			vars[idRoot(name)] = rr.value(name, func(in string) cty.Value { return providerID(in, lookup) })
		}
	}
	ctx := &hcl.EvalContext{Variables: vars, Functions: x.functions(lookup)}
	v, ds := x.expr.Value(ctx)
	if ds.HasErrors() {
		out := hcldiag.Convert(ds, func(string) []byte { return x.src })
		for i := range out {
			out[i].Message = x.where + ": " + out[i].Message
		}
		return value.Unknown, true, out
	}
	out, unknown := ctyvalue.Canonical(v)
	return out, unknown, nil
}

// value is the resource's value: one instance's, a tuple of them by
// index (count), an object of them by key (forEach).
func (rr *rootRead) value(name string, inst func(string) cty.Value) cty.Value {
	switch {
	case rr.t == nil || rr.t.kind == plainScope:
		return inst(name)
	case rr.t.kind == countScope:
		if rr.t.count == 0 {
			return cty.EmptyTupleVal
		}
		elems := make([]cty.Value, rr.t.count)
		for i := range elems {
			elems[i] = inst(value.InstanceName(name, i))
		}
		return cty.TupleVal(elems)
	}
	if len(rr.t.keys) == 0 {
		return cty.EmptyObjectVal
	}
	attrs := make(map[string]cty.Value, len(rr.t.keys))
	for _, k := range rr.t.keys {
		attrs[k] = inst(value.KeyName(name, k))
	}
	return cty.ObjectVal(attrs)
}

// object is what the template reads of instance in: its attributes
// read (unknown when not known yet), or all of them.
func (rr *rootRead) object(in string, lookup value.Lookup) cty.Value {
	if lookup == nil {
		return cty.DynamicVal
	}
	if rr.whole[in] {
		got, ok := lookup(value.Ref{Resource: in, Attr: value.AllAttrs})
		if m, isMap := got.(map[string]any); ok && isMap && len(m) > 0 {
			return ctyvalue.FromCanonical(m)
		}
		return cty.DynamicVal
	}
	names := rr.attrs[in]
	if len(names) == 0 {
		return cty.DynamicVal
	}
	attrs := make(map[string]cty.Value, len(names))
	for _, a := range names {
		attrs[a] = cty.DynamicVal
		if got, ok := lookup(value.Ref{Resource: in, Attr: a}); ok {
			attrs[a] = ctyvalue.FromCanonical(value.Normalize(got))
		}
	}
	return cty.ObjectVal(attrs)
}

// providerID is instance in's provider ID, unknown until it is known.
func providerID(in string, lookup value.Lookup) cty.Value {
	if lookup != nil {
		if got, ok := lookup(value.Ref{Resource: in}); ok {
			if s, isStr := got.(string); isStr && s != value.Unknown {
				return cty.StringVal(s)
			}
		}
	}
	return cty.UnknownVal(cty.String)
}

// functions is the table x evaluates with under lookup: the pure one
// while planning; applying (lookup answers value.Applying), the full one,
// timestamp() reading the apply's time when the lookup gives it.
func (x *Expr) functions(lookup value.Lookup) map[string]function.Function {
	if lookup == nil {
		return x.fns.For(false)
	}
	v, ok := lookup(value.Applying)
	if !ok {
		return x.fns.For(false)
	}
	if at, ok := v.(time.Time); ok && !at.IsZero() {
		return x.fns.ApplyingAt(at)
	}
	return x.fns.For(true)
}

// MarshalJSON describes the template, not its value: as written, where,
// and a digest of what the configuration bound in it (variables'
// values among them but sensitive ones', never shown), so that hashes
// and plan files tell two instances' templates apart.
func (x *Expr) MarshalJSON() ([]byte, error) {
	names := slices.Sorted(maps.Keys(x.known))
	h := sha256.New()
	for _, n := range names {
		v, _ := ctyvalue.Canonical(x.known[n])
		if m, ok := v.(map[string]any); ok && n == "var" {
			for _, s := range x.secret {
				delete(m, s)
			}
		}
		b, err := value.AppendJSON([]byte(n+"="), v)
		if err != nil {
			return nil, err
		}
		h.Write(b)
		h.Write([]byte{0})
	}
	return json.Marshal(map[string]string{"yaml": x.pos.String(), "text": x.text, "with": hex.EncodeToString(h.Sum(nil))})
}

// newFunctionTables are OpenTofu's functions as a kyku.yaml reads them:
// relative paths from the directory of the first configuration file,
// the file functions confined to its repository, as a .tf file's are;
// the impure ones (timestamp, uuid, bcrypt) known only when applying.
func newFunctionTables(files []File) *funcs.Tables {
	dir := "."
	if len(files) > 0 {
		dir = filepath.Dir(files[0].Name)
	}
	return funcs.NewTables(func() funcs.Options {
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs
		}
		return funcs.Options{BaseDir: dir, WorkDir: dir, Within: funcs.Repository(dir)}
	})
}

// functions is the table a template evaluated while the configuration
// is read uses.
func (p *parser) functions(applying bool) map[string]function.Function {
	return p.fns.For(applying)
}

// source is a configuration file's text, for diagnostics.
func (p *parser) source(file string) []byte { return p.sources[file] }
