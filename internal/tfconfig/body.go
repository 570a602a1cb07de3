package tfconfig

import (
	"maps"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/dynblock"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/kyku/action/internal/lang/ctyvalue"
	"github.com/kyku/action/internal/value"
)

// Expr is one argument of a resource instance (an attribute, or every
// block of one type, dynamic ones among them) that reads other
// resources: the engine evaluates it when it resolves the resource.
type Expr struct {
	sc     scope
	attr   hcl.Expression     // an attribute's
	blocks []*hclsyntax.Block // or a block type's blocks
	typ    string
	shape  *shape
	travs  []hcl.Traversal
	refs   []value.Ref
	rng    hcl.Range
}

var _ value.Expr = (*Expr)(nil)

// Refs are the resource instances the argument reads.
func (e *Expr) Refs() []value.Ref { return e.refs }

// Eval evaluates the argument, every resource it reads looked up.
func (e *Expr) Eval(lookup value.Lookup) (any, bool, error) {
	v, diags := e.value(lookup)
	if diags.HasErrors() {
		return value.Unknown, true, toDiag(diags, e.sc.mi.ev.files)
	}
	out, unknown := canonical(v)
	return out, unknown, nil
}

// EvalTyped is Eval, with the value's type (value.TypedExpr).
func (e *Expr) EvalTyped(lookup value.Lookup) (v, typ any, unknown bool, err error) {
	cv, diags := e.value(lookup)
	if diags.HasErrors() {
		return value.Unknown, nil, true, toDiag(diags, e.sc.mi.ev.files)
	}
	out, unknown := canonical(cv)
	return out, ctyvalue.TypeJSON(cv.Type()), unknown, nil
}

// value is the argument's cty value, marks kept.
func (e *Expr) value(lookup value.Lookup) (cty.Value, hcl.Diagnostics) {
	if v, ok := e.attrRead(lookup); ok {
		return v, nil
	}
	return e.evaluate(lookup)
}

// evaluate is value, through an evaluation context.
func (e *Expr) evaluate(lookup value.Lookup) (cty.Value, hcl.Diagnostics) {
	ctx, diags := e.sc.context(e.travs, lookup, memo{}, true)
	if diags.HasErrors() {
		return cty.DynamicVal, diags
	}
	if e.attr != nil {
		v, ds := e.attr.Value(ctx)
		return v, append(diags, ds...)
	}
	v, ds := blocksValue(e.blocks, e.typ, e.shape, ctx)
	return v, append(diags, ds...)
}

// attrRead is the value of an argument that reads one attribute of one
// resource instance and nothing else (after = aws_vpc.main.id, most
// arguments that read others), taken from lookup as evaluate takes it,
// with the same questions asked in the same order, but without the
// objects evaluate builds to hand to hcl (a quarter of the allocations
// of a plan of 50,000 such resources). ok is false for any other
// argument, and for a resource whose instances are not decided yet or
// of a Kyku type: evaluate's.
func (e *Expr) attrRead(lookup value.Lookup) (cty.Value, bool) {
	st, isTrav := e.attr.(*hclsyntax.ScopeTraversalExpr)
	if !isTrav || len(e.travs) != 1 || len(st.Traversal) != 3 || e.sc.configured {
		return cty.NilVal, false
	}
	root, ok0 := st.Traversal[0].(hcl.TraverseRoot)
	name, ok1 := st.Traversal[1].(hcl.TraverseAttr)
	attr, ok2 := st.Traversal[2].(hcl.TraverseAttr)
	if !ok0 || !ok1 || !ok2 || !ascii(attr.Name) || attr.Name == "count" {
		return cty.NilVal, false
	}
	switch root.Name {
	case "var", "local", "module", "data", "count", "each", "path", "terraform", "tofu", "self":
		return cty.NilVal, false
	}
	mi := e.sc.mi
	key := root.Name + "." + name.Name
	r := mi.mod.Resources[key]
	if r == nil || r.Mode != Managed {
		return cty.NilVal, false
	}
	if _, kyku := kykuType(r.Type); kyku {
		return cty.NilVal, false
	}
	mi.mu.Lock()
	ex := mi.res[key]
	mi.mu.Unlock()
	if ex == nil || ex.state != prepared || ex.failed || ex.rep != single || len(ex.keys) == 0 {
		return cty.NilVal, false // evaluate decides it, and says what is wrong
	}
	if lookup == nil {
		return cty.DynamicVal, true
	}
	addr := mi.instanceAddr(key, ex.keys[0])
	got, found := lookup(value.Ref{Resource: addr, Attr: value.AllAttrs})
	vals, isMap := got.(map[string]any)
	var ty cty.Type
	if found && isMap { // as instanceObject asks (typedObject)
		ty = objectTypeOf(addr, lookup)
	}
	applying(lookup) // asked last, as evaluate's context asks it
	if !found || !isMap {
		return cty.DynamicVal, true
	}
	for k := range vals {
		if !ascii(k) { // a name cty normalises: the object as evaluate builds it
			return withSchemaTypes(objectWith(vals, attrNames(e.travs)[key]), ty).GetAttr(attr.Name), true
		}
	}
	if v, ok := vals[attr.Name]; ok {
		return schemaTyped(fromCanonical(v), ty, attr.Name), true
	}
	return cty.NullVal(cty.DynamicPseudoType), true // state leaves null attributes out
}

// ascii reports whether s is ASCII, which cty leaves as it is where it
// normalises other strings (NFC) as object attribute names.
func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// MarshalJSON writes what the argument is, not its value: where it is
// written and in which instance (hashes and plan files tell
// configurations apart by it; a plan file's Expr is read back as this
// description, so applying a saved plan of a Terraform configuration
// loads the configuration again).
func (e *Expr) MarshalJSON() ([]byte, error) {
	rng := e.rng
	if from := e.sc.mi.ev.in.NamesFrom; from != "" {
		if rel, err := filepath.Rel(from, rng.Filename); err == nil && filepath.IsLocal(rel) {
			rng.Filename = filepath.ToSlash(rel)
		}
	}
	// The object json.Marshal writes of {"hcl", "instance", "module",
	// "text"} (keys sorted, strings escaped as it escapes them), written
	// here: a plan hashes every argument of every resource.
	b := make([]byte, 0, 64+len(rng.Filename)+max(0, e.rng.End.Byte-e.rng.Start.Byte))
	b = value.AppendString(append(b, `{"hcl":`...), rng.String())
	if s := e.sc.key.suffix(); s != "" {
		b = value.AppendString(append(b, `,"instance":`...), s)
	}
	if e.sc.mi.addr != "" {
		b = value.AppendString(append(b, `,"module":`...), e.sc.mi.addr)
	}
	if f := e.sc.mi.ev.files[e.rng.Filename]; f != nil && e.rng.End.Byte <= len(f.Bytes) {
		b = value.AppendString(append(b, `,"text":`...), string(e.rng.SliceBytes(f.Bytes)))
	}
	return append(b, '}'), nil
}

// shape is the structure of a body as written: its attributes' names,
// and per block type the number of labels and the shape of the blocks'
// bodies (a dynamic block counting as blocks of its label's type, shaped
// by its content block).
type shape struct {
	attrs  map[string]bool
	blocks map[string]*blockShape
}

type blockShape struct {
	labels int
	body   *shape
}

func newShape() *shape { return &shape{attrs: map[string]bool{}, blocks: map[string]*blockShape{}} }

// add adds the shape of body b.
func (s *shape) add(b *hclsyntax.Body) {
	for name := range b.Attributes {
		s.attrs[name] = true
	}
	for _, blk := range b.Blocks {
		s.addBlock(blk)
	}
}

func (s *shape) addBlock(blk *hclsyntax.Block) {
	typ, labels, body := blk.Type, len(blk.Labels), blk.Body
	if blk.Type == "dynamic" && len(blk.Labels) == 1 {
		typ, labels, body = blk.Labels[0], 0, nil
		if a, ok := blk.Body.Attributes["labels"]; ok {
			if t, ok := a.Expr.(*hclsyntax.TupleConsExpr); ok {
				labels = len(t.Exprs)
			}
		}
		for _, inner := range blk.Body.Blocks {
			if inner.Type == "content" {
				body = inner.Body
			}
		}
	}
	bs := s.blocks[typ]
	if bs == nil {
		bs = &blockShape{body: newShape()}
		s.blocks[typ] = bs
	}
	bs.labels = max(bs.labels, labels)
	if body != nil {
		bs.body.add(body)
	}
}

// schema is the body schema that reads a body of this shape.
func (s *shape) schema() *hcl.BodySchema {
	out := &hcl.BodySchema{}
	for _, name := range slices.Sorted(maps.Keys(s.attrs)) {
		out.Attributes = append(out.Attributes, hcl.AttributeSchema{Name: name})
	}
	for _, typ := range slices.Sorted(maps.Keys(s.blocks)) {
		out.Blocks = append(out.Blocks, hcl.BlockHeaderSchema{Type: typ, LabelNames: labelNames(s.blocks[typ].labels)})
	}
	return out
}

func labelNames(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "label" + strconv.Itoa(i)
	}
	return out
}

// blocksValue evaluates blocks of type typ (dynamic ones expanded):
// unlabelled blocks are a tuple of objects, one per block; blocks with a
// label an object of them by label.
func blocksValue(blocks []*hclsyntax.Block, typ string, sh *shape, ctx *hcl.EvalContext) (cty.Value, hcl.Diagnostics) {
	body := &hclsyntax.Body{Blocks: blocks}
	if len(blocks) > 0 {
		body.SrcRange = blocks[0].Range()
	}
	bs := sh.blocks[typ]
	content, diags := dynblock.Expand(body, ctx).Content(&hcl.BodySchema{
		Blocks: []hcl.BlockHeaderSchema{{Type: typ, LabelNames: labelNames(bs.labels)}},
	})
	if diags.HasErrors() {
		return cty.DynamicVal, diags
	}
	return blockList(content.Blocks, bs, ctx)
}

// blockList is the value of blocks of one type (see blocksValue).
func blockList(blocks hcl.Blocks, bs *blockShape, ctx *hcl.EvalContext) (cty.Value, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	if bs.labels > 0 {
		byLabel := map[string]cty.Value{}
		for _, b := range blocks {
			v, ds := bodyValue(b.Body, bs.body, ctx)
			diags = append(diags, ds...)
			byLabel[b.Labels[0]] = v
		}
		if len(byLabel) == 0 {
			return cty.EmptyObjectVal, diags
		}
		return cty.ObjectVal(byLabel), diags
	}
	if len(blocks) == 0 {
		return cty.EmptyTupleVal, diags
	}
	elems := make([]cty.Value, len(blocks))
	for i, b := range blocks {
		v, ds := bodyValue(b.Body, bs.body, ctx)
		diags = append(diags, ds...)
		elems[i] = v
	}
	return cty.TupleVal(elems), diags
}

// bodyValue is the object of a nested block's body: its attributes'
// values and its blocks by type.
func bodyValue(b hcl.Body, sh *shape, ctx *hcl.EvalContext) (cty.Value, hcl.Diagnostics) {
	content, diags := b.Content(sh.schema())
	attrs := map[string]cty.Value{}
	for name, a := range content.Attributes {
		v, ds := a.Expr.Value(ctx)
		diags = append(diags, ds...)
		attrs[name] = v
	}
	byType := map[string]hcl.Blocks{}
	for _, blk := range content.Blocks {
		byType[blk.Type] = append(byType[blk.Type], blk)
	}
	for typ, blocks := range byType {
		v, ds := blockList(blocks, sh.blocks[typ], ctx)
		diags = append(diags, ds...)
		attrs[typ] = v
	}
	if len(attrs) == 0 {
		return cty.EmptyObjectVal, diags
	}
	return cty.ObjectVal(attrs), diags
}

// bodyTraversals are the traversals of every expression in b, nested
// blocks' included, but for those of a dynamic block's iterator (its
// content's each.key and each.value): it names nothing of the module.
func bodyTraversals(b *hclsyntax.Body) []hcl.Traversal {
	return appendBodyTraversals(nil, b, nil)
}

// appendBodyTraversals appends bodyTraversals(b) to out, iters being the
// iterators of the dynamic blocks b is in.
func appendBodyTraversals(out []hcl.Traversal, b *hclsyntax.Body, iters []string) []hcl.Traversal {
	for _, name := range slices.Sorted(maps.Keys(b.Attributes)) {
		for _, t := range b.Attributes[name].Expr.Variables() {
			if !slices.Contains(iters, t.RootName()) {
				out = append(out, t)
			}
		}
	}
	for _, blk := range b.Blocks {
		if blk.Type != "dynamic" || len(blk.Labels) != 1 {
			out = appendBodyTraversals(out, blk.Body, iters)
			continue
		}
		it := blk.Labels[0]
		if a := blk.Body.Attributes["iterator"]; a != nil {
			if name := hcl.ExprAsKeyword(a.Expr); name != "" {
				it = name
			}
		}
		inner := append(slices.Clip(iters), it)
		for _, name := range slices.Sorted(maps.Keys(blk.Body.Attributes)) {
			if name == "iterator" {
				continue // a name, not a reference
			}
			scope := iters // for_each is read where the block is
			if name == "labels" {
				scope = inner
			}
			out = appendBodyTraversals(out, &hclsyntax.Body{Attributes: hclsyntax.Attributes{name: blk.Body.Attributes[name]}}, scope)
		}
		for _, content := range blk.Body.Blocks {
			out = appendBodyTraversals(out, content.Body, inner)
		}
	}
	return out
}

// literal is a value of a .tf file that holds "${" in a string (a
// templatefile's template read with file(), a shell script): Kyku's
// resolver would read that as a kyku.yaml reference; as an Expr it is
// the value itself.
type literal struct{ v any }

var _ value.Expr = literal{}

func (l literal) Refs() []value.Ref                    { return nil }
func (l literal) Eval(value.Lookup) (any, bool, error) { return value.Copy(l.v), false, nil }
func (l literal) MarshalJSON() ([]byte, error)         { return value.AppendJSON(nil, l.v) }

// plain is a canonical value as a property, output or provider setting:
// itself, or a literal when a string in it holds "${".
func plain(v any) any {
	if value.HoldsTemplate(v) {
		return literal{v}
	}
	return v
}

// SecretRefs are the references whose sensitivity reaches the argument's
// value: those it reads outside nonsensitive(), which takes the mark off
// what it is given (through a local, every reference it reads), and not
// as a whole object given to keys() or length(), whose results carry the
// marks of the object itself, not of the values in it (module.db's
// instance keys are not secret because an output of each is; an
// attribute given whole, res.tags, keeps its own).
func (e *Expr) SecretRefs() []value.Ref {
	syn, ok := e.attr.(hclsyntax.Expression)
	if !ok {
		return e.refs
	}
	var unmarked []hcl.Range
	_ = hclsyntax.VisitAll(syn, func(n hclsyntax.Node) hcl.Diagnostics {
		c, ok := n.(*hclsyntax.FunctionCallExpr)
		if !ok {
			return nil
		}
		switch c.Name {
		case "nonsensitive", "core::nonsensitive":
			unmarked = append(unmarked, c.Range())
		case "keys", "core::keys", "length", "core::length":
			for _, a := range c.Args {
				if t, ok := a.(*hclsyntax.ScopeTraversalExpr); ok && wholeObject(t.Traversal) {
					unmarked = append(unmarked, a.Range())
				}
			}
		}
		return nil
	})
	if len(unmarked) == 0 {
		return e.refs
	}
	var outside []hcl.Traversal
	for _, t := range e.attr.Variables() {
		within := false
		for _, r := range unmarked {
			within = within || r.ContainsOffset(t.SourceRange().Start.Byte) && t.SourceRange().Filename == r.Filename
		}
		if !within {
			outside = append(outside, t)
		}
	}
	return e.sc.refsOf(outside)
}

// wholeObject reports whether t names a whole module call, resource or
// data source (or instances of one), not a value inside one: module.db,
// aws_x.y["k"], data.a.b.
func wholeObject(t hcl.Traversal) bool {
	steps := 2 // TYPE.NAME, module.NAME
	switch t.RootName() {
	case "data":
		steps = 3
	case "var", "local", "each", "count", "path", "terraform", "tofu", "self":
		return false
	}
	if len(t) < steps {
		return false
	}
	for _, st := range t[steps:] {
		if _, index := st.(hcl.TraverseIndex); !index {
			return false
		}
	}
	return true
}
