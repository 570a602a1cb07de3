package tfconfig

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/kyku/action/internal/tfinstall"
	"github.com/kyku/action/internal/tfmodule"
)

// What a file holds, decoded block by block.
type file struct {
	requiredProviders []*RequiredProvider
	backends          []*Backend
	providers         []*ProviderBlock
	variables         []*Variable
	locals            []*Local
	outputs           []*Output
	resources         []*Resource
	calls             []*Call
	moved             []*Moved
	imports           []*Import
	removed           []*Removed
	checks            []*Check
}

var fileSchema = &hcl.BodySchema{
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "terraform"},
		{Type: "required_providers"},
		{Type: "provider", LabelNames: []string{"name"}},
		{Type: "variable", LabelNames: []string{"name"}},
		{Type: "locals"},
		{Type: "output", LabelNames: []string{"name"}},
		{Type: "module", LabelNames: []string{"name"}},
		{Type: "resource", LabelNames: []string{"type", "name"}},
		{Type: "data", LabelNames: []string{"type", "name"}},
		{Type: "ephemeral", LabelNames: []string{"type", "name"}},
		{Type: "moved"},
		{Type: "import"},
		{Type: "check", LabelNames: []string{"name"}},
		{Type: "removed"},
		{Type: "language"},
	},
}

// badIdentifierDetail is OpenTofu's detail for a name that is not one.
const badIdentifierDetail = "A name must start with a letter or underscore and may contain only letters, digits, underscores, and dashes."

// decodeFile decodes a file's top-level blocks, its problems added to
// diags.
func decodeFile(body hcl.Body, diags *hcl.Diagnostics) *file {
	f := &file{}
	content, ds := body.Content(fileSchema)
	*diags = append(*diags, ds...)
	add := func(ds hcl.Diagnostics) { *diags = append(*diags, ds...) }
	for _, b := range content.Blocks {
		switch b.Type {
		case "terraform":
			add(f.terraform(b))
		case "required_providers":
			add(hcl.Diagnostics{{
				Severity: hcl.DiagError,
				Summary:  "Invalid required_providers block",
				Detail:   "A \"required_providers\" block must be nested inside a \"terraform\" block.",
				Subject:  b.TypeRange.Ptr(),
			}})
		case "provider":
			p, ds := decodeProvider(b)
			add(ds)
			f.providers = append(f.providers, p)
		case "variable":
			v, ds := decodeVariable(b)
			add(ds)
			f.variables = append(f.variables, v)
		case "locals":
			ls, ds := decodeLocals(b)
			add(ds)
			f.locals = append(f.locals, ls...)
		case "output":
			o, ds := decodeOutput(b)
			add(ds)
			f.outputs = append(f.outputs, o)
		case "module":
			c, ds := decodeCall(b)
			add(ds)
			f.calls = append(f.calls, c)
		case "resource":
			r, ds := decodeResource(b, Managed)
			add(ds)
			f.resources = append(f.resources, r)
		case "data":
			r, ds := decodeResource(b, Data)
			add(ds)
			f.resources = append(f.resources, r)
		case "ephemeral":
			add(hcl.Diagnostics{unsupported(b.DefRange, "Ephemeral resources are not supported", "Kyku does not run ephemeral resources yet; use a data source, or a variable marked ephemeral = false.")})
		case "moved":
			m, ds := decodeMoved(b)
			add(ds)
			f.moved = append(f.moved, m)
		case "import":
			im, ds := decodeImport(b)
			add(ds)
			f.imports = append(f.imports, im)
		case "removed":
			r, ds := decodeRemoved(b)
			add(ds)
			f.removed = append(f.removed, r)
		case "check":
			c, ds := decodeCheck(b)
			add(ds)
			f.checks = append(f.checks, c)
		case "language":
			// checkCompat's (compat.go)
		}
	}
	return f
}

func unsupported(rng hcl.Range, summary, detail string) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: rng.Ptr()}
}

var terraformSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "required_version"}, {Name: "experiments"}, {Name: "language"}},
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "backend", LabelNames: []string{"type"}},
		{Type: "cloud"},
		{Type: "required_providers"},
		{Type: "provider_meta", LabelNames: []string{"provider"}},
		{Type: "encryption"},
	},
}

func (f *file) terraform(b *hcl.Block) hcl.Diagnostics {
	// required_version is checkCompat's (compat.go), in .tofu files only
	content, diags := b.Body.Content(terraformSchema)
	for _, inner := range content.Blocks {
		switch inner.Type {
		case "backend":
			f.backends = append(f.backends, &Backend{Type: inner.Labels[0], Body: inner.Body, DeclRange: inner.DefRange, TypeRange: inner.LabelRanges[0]})
		case "cloud":
			diags = append(diags, unsupported(inner.DefRange, "Unsupported cloud block",
				"Kyku keeps state in its own backends (local, s3, gcs, http): a cloud block names a remote service that runs the plans itself. Replace it with a backend block."))
		case "required_providers":
			rps, ds := decodeRequiredProviders(inner)
			diags = append(diags, ds...)
			f.requiredProviders = append(f.requiredProviders, rps...)
		case "provider_meta":
			// Sent to providers as module metadata: Kyku sends none (null).
		case "encryption":
			diags = append(diags, unsupported(inner.DefRange, "Unsupported encryption block",
				"Kyku encrypts state with its own settings (the encryption: section of a kyku.yaml, or KYKU_STATE_PASSPHRASE), not with an encryption block."))
		}
	}
	return diags
}

// checkConstraint refuses a provider version constraint that is not one,
// where it is written, as OpenTofu does when it reads the configuration.
func checkConstraint(s string, rng hcl.Range) hcl.Diagnostics {
	_, err := tfinstall.ParseConstraints(s)
	if err == nil {
		return nil
	}
	return hcl.Diagnostics{{
		Severity: hcl.DiagError,
		Summary:  "Invalid version constraint",
		Detail:   fmt.Sprintf("Incorrect version constraint syntax: %s.", errors.Unwrap(err)),
		Subject:  rng.Ptr(),
	}}
}

func decodeRequiredProviders(b *hcl.Block) ([]*RequiredProvider, hcl.Diagnostics) {
	attrs, diags := b.Body.JustAttributes()
	var out []*RequiredProvider
	for _, name := range sortedKeys(attrs) {
		a := attrs[name]
		rp := &RequiredProvider{Name: name, Range: a.Range}
		pairs, ds := hcl.ExprMap(a.Expr)
		if ds.HasErrors() {
			// The pre-0.13 form: only a version constraint.
			var s string
			if ds := decodeString(a.Expr, &s); ds.HasErrors() {
				diags = append(diags, invalidRequiredProvider(a, "A provider requirement must be a string (a version constraint) or an object with \"source\" and \"version\"."))
				continue
			}
			rp.Version = s
			diags = append(diags, checkConstraint(s, a.Expr.Range())...)
			out = append(out, rp)
			continue
		}
		for _, kv := range pairs {
			key := hcl.ExprAsKeyword(kv.Key)
			if key == "" {
				if k, ds := kv.Key.Value(nil); !ds.HasErrors() && k.Type() == cty.String {
					key = k.AsString()
				}
			}
			switch key {
			case "source", "version":
				var s string
				if ds := decodeString(kv.Value, &s); ds.HasErrors() {
					diags = append(diags, invalidRequiredProvider(a, fmt.Sprintf("%s must be specified as a string.", strings.ToUpper(key[:1])+key[1:])))
					continue
				}
				if key == "source" {
					rp.Source = s
				} else {
					rp.Version = s
					diags = append(diags, checkConstraint(s, kv.Value.Range())...)
				}
			case "configuration_aliases":
				exprs, ds := hcl.ExprList(kv.Value)
				diags = append(diags, ds...)
				for _, e := range exprs {
					ref, ds := decodeProviderRef(e, "configuration_aliases")
					diags = append(diags, ds...)
					if ref != nil {
						rp.Aliases = append(rp.Aliases, ref.Key())
					}
				}
			default:
				diags = append(diags, invalidRequiredProvider(a, fmt.Sprintf("Unexpected attribute %q: required_providers objects can only contain \"version\", \"source\" and \"configuration_aliases\" attributes.", key)))
			}
		}
		out = append(out, rp)
	}
	return out, diags
}

func invalidRequiredProvider(a *hcl.Attribute, detail string) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid required_providers object", Detail: detail, Subject: a.Expr.Range().Ptr()}
}

func decodeProvider(b *hcl.Block) (*ProviderBlock, hcl.Diagnostics) {
	p := &ProviderBlock{Name: b.Labels[0], DeclRange: b.DefRange}
	content, remain, diags := b.Body.PartialContent(&hcl.BodySchema{
		Attributes: []hcl.AttributeSchema{{Name: "alias"}, {Name: "version"}, {Name: "for_each"}},
		Blocks:     []hcl.BlockHeaderSchema{{Type: "_"}},
	})
	if a, ok := content.Attributes["for_each"]; ok {
		diags = append(diags, unsupported(a.NameRange, "Provider for_each is not supported",
			"A provider configuration with for_each (OpenTofu 1.9) makes one instance per key, which Kyku does not run yet: write an aliased provider block for each key instead."))
	}
	p.Body = remain
	if !validIdentifier(p.Name) {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid provider local name", Detail: badIdentifierDetail, Subject: b.LabelRanges[0].Ptr()})
	}
	if a, ok := content.Attributes["alias"]; ok {
		diags = append(diags, decodeString(a.Expr, &p.Alias)...)
		if p.Alias != "" && !validIdentifier(p.Alias) {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid provider configuration alias", Detail: badIdentifierDetail, Subject: a.Expr.Range().Ptr()})
		}
	}
	if a, ok := content.Attributes["version"]; ok {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Version constraints inside provider configuration blocks are not supported",
			Detail:   "Kyku reads provider version constraints from required_providers only. Move this constraint to the terraform block's required_providers.",
			Subject:  a.Range.Ptr(),
		})
	}
	for _, e := range content.Blocks {
		p.Body = hcl.MergeBodies([]hcl.Body{p.Body, e.Body})
	}
	return p, diags
}

var variableSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "description"}, {Name: "default"}, {Name: "type"}, {Name: "sensitive"},
		{Name: "nullable"}, {Name: "ephemeral"}, {Name: "deprecated"}, {Name: "const"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "validation"}},
}

// reservedVariableNames are the module block's own arguments.
var reservedVariableNames = []string{"source", "version", "providers", "count", "for_each", "depends_on", "lifecycle", "_"}

func decodeLocals(b *hcl.Block) ([]*Local, hcl.Diagnostics) {
	attrs, diags := b.Body.JustAttributes()
	var out []*Local
	for _, name := range sortedKeys(attrs) {
		a := attrs[name]
		if !validIdentifier(name) {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid local value name", Detail: badIdentifierDetail, Subject: a.NameRange.Ptr()})
		}
		out = append(out, &Local{Name: name, Expr: a.Expr, DeclRange: a.Range})
	}
	return out, diags
}

var outputSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "description"}, {Name: "value"}, {Name: "sensitive"}, {Name: "depends_on"},
		{Name: "ephemeral"}, {Name: "deprecated"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "precondition"}},
}

func decodeOutput(b *hcl.Block) (*Output, hcl.Diagnostics) {
	o := &Output{Name: b.Labels[0], DeclRange: b.DefRange}
	content, diags := b.Body.Content(outputSchema)
	if !validIdentifier(o.Name) {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid output name", Detail: badIdentifierDetail, Subject: b.LabelRanges[0].Ptr()})
	}
	if a, ok := content.Attributes["description"]; ok {
		diags = append(diags, decodeString(a.Expr, &o.Description)...)
	}
	if a, ok := content.Attributes["value"]; ok {
		o.Expr = a.Expr
	} else {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Missing required argument", Detail: "The argument \"value\" is required, but no definition was found.", Subject: b.Body.MissingItemRange().Ptr()})
	}
	if a, ok := content.Attributes["sensitive"]; ok {
		diags = append(diags, decodeBool(a.Expr, &o.Sensitive)...)
	}
	if a, ok := content.Attributes["deprecated"]; ok {
		diags = append(diags, decodeString(a.Expr, &o.Deprecated)...)
	}
	if a, ok := content.Attributes["ephemeral"]; ok {
		diags = append(diags, unsupported(a.Range, "Ephemeral outputs are not supported", "Kyku does not run ephemeral values yet."))
	}
	if a, ok := content.Attributes["depends_on"]; ok {
		deps, ds := decodeDependsOn(a)
		diags = append(diags, ds...)
		o.DependsOn = deps
	}
	for _, inner := range content.Blocks {
		cr, ds := decodeCheckRule(inner)
		diags = append(diags, ds...)
		o.Preconditions = append(o.Preconditions, cr)
	}
	return o, diags
}

var checkRuleSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "condition", Required: true}, {Name: "error_message", Required: true}},
}

// decodeCheckRule reads a precondition, postcondition, assert or
// validation block. Its condition must read something: one that reads
// nothing checks nothing (OpenTofu refuses it too).
func decodeCheckRule(b *hcl.Block) (*CheckRule, hcl.Diagnostics) {
	cr := &CheckRule{DeclRange: b.DefRange}
	content, diags := b.Body.Content(checkRuleSchema)
	if a, ok := content.Attributes["condition"]; ok {
		cr.Condition = a.Expr
		if len(a.Expr.Variables()) == 0 {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  fmt.Sprintf("Invalid %s expression", b.Type),
				Detail:   "The condition expression must refer to at least one object from elsewhere in the configuration, or else its result would not be checking anything.",
				Subject:  a.Expr.Range().Ptr(),
			})
		}
	}
	if a, ok := content.Attributes["error_message"]; ok {
		cr.ErrorMessage = a.Expr
	}
	return cr, diags
}

// decodeDependsOn reads depends_on = [ref, …]: each a reference to a
// resource, data source or module call.
func decodeDependsOn(a *hcl.Attribute) ([]hcl.Traversal, hcl.Diagnostics) {
	exprs, diags := hcl.ExprList(a.Expr)
	var out []hcl.Traversal
	for _, e := range exprs {
		t, ds := hcl.AbsTraversalForExpr(unquoted(e))
		diags = append(diags, ds...)
		if len(t) > 0 {
			out = append(out, t)
		}
	}
	return out, diags
}

// unquoted is expr, or the reference a quoted string in the native syntax
// holds: depends_on = ["aws_vpc.main"] and provider = "aws.west", the
// form of Terraform 0.11 and before, which OpenTofu still takes (with a
// warning to drop the quotes).
func unquoted(expr hcl.Expression) hcl.Expression {
	t, ok := expr.(*hclsyntax.TemplateExpr)
	if !ok || !t.IsStringLiteral() {
		return expr
	}
	v, diags := t.Value(nil)
	if diags.HasErrors() || v.IsNull() || !v.IsKnown() {
		return expr
	}
	rng := expr.Range()
	start := rng.Start
	start.Column++ // past the quote
	start.Byte++
	trav, diags := hclsyntax.ParseTraversalAbs([]byte(v.AsString()), rng.Filename, start)
	if diags.HasErrors() {
		return expr
	}
	return &hclsyntax.ScopeTraversalExpr{Traversal: trav, SrcRange: rng}
}

// decodeProviderRef reads a provider reference: name or name.alias.
func decodeProviderRef(expr hcl.Expression, arg string) (*ProviderRef, hcl.Diagnostics) {
	t, diags := hcl.AbsTraversalForExpr(unquoted(expr))
	invalid := &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Invalid provider configuration reference",
		Detail:   fmt.Sprintf("The %s argument requires a provider type name, optionally followed by a period and then a configuration alias.", arg),
		Subject:  expr.Range().Ptr(),
	}
	if instanceKeyed(expr) {
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Provider instances are not supported",
			Detail:   fmt.Sprintf("The %s argument picks an instance of a provider configuration with for_each (OpenTofu 1.9), which Kyku does not run yet: write an aliased provider block for each instance and name it (aws.eu_west).", arg),
			Subject:  expr.Range().Ptr(),
		}}
	}
	if diags.HasErrors() {
		return nil, hcl.Diagnostics{invalid}
	}
	ref := &ProviderRef{Name: t.RootName(), Range: expr.Range()}
	switch len(t) {
	case 1:
	case 2:
		step, ok := t[1].(hcl.TraverseAttr)
		if !ok {
			return nil, hcl.Diagnostics{invalid}
		}
		ref.Alias = step.Name
	default:
		return nil, hcl.Diagnostics{invalid}
	}
	return ref, nil
}

// instanceKeyed reports whether a provider reference indexes its
// configuration (aws.by_region[each.key]): an instance of a provider
// with for_each.
func instanceKeyed(expr hcl.Expression) bool {
	switch e := expr.(type) {
	case *hclsyntax.IndexExpr:
		return true
	case *hclsyntax.ScopeTraversalExpr:
		return slices.ContainsFunc(e.Traversal, func(s hcl.Traverser) bool { _, ok := s.(hcl.TraverseIndex); return ok })
	}
	return false
}

var callSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "source", Required: true}, {Name: "version"}, {Name: "count"}, {Name: "for_each"},
		{Name: "depends_on"}, {Name: "providers"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "_"}, {Type: "lifecycle"}, {Type: "locals"}},
}

func decodeCall(b *hcl.Block) (*Call, hcl.Diagnostics) {
	c := &Call{Name: b.Labels[0], DeclRange: b.DefRange}
	content, remain, diags := b.Body.PartialContent(callSchema)
	if !validIdentifier(c.Name) {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid module instance name", Detail: badIdentifierDetail, Subject: b.LabelRanges[0].Ptr()})
	}
	if a, ok := content.Attributes["source"]; ok {
		c.SourceRange = a.Expr.Range()
		if tfmodule.Constant(a.Expr) {
			diags = append(diags, decodeString(a.Expr, &c.Source)...)
		} else {
			c.SourceExpr = a.Expr
		}
	}
	if a, ok := content.Attributes["version"]; ok {
		c.VersionRange = a.Expr.Range()
		if tfmodule.Constant(a.Expr) {
			diags = append(diags, decodeString(a.Expr, &c.Version)...)
		} else {
			c.VersionExpr = a.Expr
		}
	}
	c.Count, c.ForEach = attrExpr(content, "count"), attrExpr(content, "for_each")
	if a, ok := content.Attributes["depends_on"]; ok {
		deps, ds := decodeDependsOn(a)
		diags = append(diags, ds...)
		c.DependsOn = deps
	}
	if a, ok := content.Attributes["providers"]; ok {
		ps, ds := decodePassedProviders(a)
		diags = append(diags, ds...)
		c.Providers = ps
	}
	bodies := []hcl.Body{remain}
	var lifecycle *hcl.Block
	var enabled *hcl.Attribute
	for _, inner := range content.Blocks {
		switch inner.Type {
		case "_":
			bodies = append(bodies, inner.Body)
		case "lifecycle":
			if lifecycle != nil {
				diags = append(diags, duplicateLifecycle(lifecycle, inner))
				continue
			}
			lifecycle = inner
			lc, ds := inner.Body.Content(&hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "enabled"}}})
			diags = append(diags, ds...)
			if a, ok := lc.Attributes["enabled"]; ok {
				c.Enabled, enabled = a.Expr, a
			}
		default:
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Reserved block type name in module block",
				Detail:   fmt.Sprintf("The block type name %q is reserved for use by OpenTofu in a future version.", inner.Type),
				Subject:  inner.TypeRange.Ptr(),
			})
		}
	}
	if d := repetitionConflict(content.Attributes["count"], enabled, content.Attributes["for_each"], "should", "module instances"); d != nil {
		diags = append(diags, d)
	}
	var ds hcl.Diagnostics
	c.Inputs, ds = callInputs(b.Body, bodies)
	diags = append(diags, ds...)
	return c, diags
}

// callInputs are the arguments of a module block's bodies (its own body
// less what callSchema takes, then its escaping blocks') that set the
// child's variables. A native body's are read from its attributes:
// JustAttributes refuses a body holding any block, the lifecycle block
// callSchema took among them.
func callInputs(own hcl.Body, bodies []hcl.Body) (hcl.Attributes, hcl.Diagnostics) {
	native, ok := own.(*hclsyntax.Body)
	if !ok {
		return hcl.MergeBodies(bodies).JustAttributes()
	}
	attrs := hcl.Attributes{}
	for name, a := range native.Attributes {
		if !slices.ContainsFunc(callSchema.Attributes, func(s hcl.AttributeSchema) bool { return s.Name == name }) {
			attrs[name] = a.AsHCLAttribute()
		}
	}
	var diags hcl.Diagnostics
	for _, escape := range bodies[1:] {
		more, ds := escape.JustAttributes()
		diags = append(diags, ds...)
		for name, a := range more {
			if prev, dup := attrs[name]; dup {
				diags = append(diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Duplicate argument",
					Detail:   fmt.Sprintf("Argument %q was already set at %s", name, prev.NameRange),
					Subject:  a.NameRange.Ptr(),
				})
				continue
			}
			attrs[name] = a
		}
	}
	return attrs, diags
}

func attrExpr(content *hcl.BodyContent, name string) hcl.Expression {
	if a, ok := content.Attributes[name]; ok {
		return a.Expr
	}
	return nil
}

func decodePassedProviders(a *hcl.Attribute) ([]PassedProvider, hcl.Diagnostics) {
	pairs, diags := hcl.ExprMap(a.Expr)
	var out []PassedProvider
	for _, kv := range pairs {
		child, ds := decodeProviderRef(kv.Key, "providers")
		diags = append(diags, ds...)
		parent, ds := decodeProviderRef(kv.Value, "providers")
		diags = append(diags, ds...)
		if child != nil && parent != nil {
			out = append(out, PassedProvider{InChild: *child, InParent: *parent})
		}
	}
	return out, diags
}

func decodeMoved(b *hcl.Block) (*Moved, hcl.Diagnostics) {
	m := &Moved{DeclRange: b.DefRange}
	content, diags := b.Body.Content(&hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "from", Required: true}, {Name: "to", Required: true}}})
	if a, ok := content.Attributes["from"]; ok {
		t, ds := hcl.AbsTraversalForExpr(a.Expr)
		diags = append(diags, ds...)
		m.From = t
	}
	if a, ok := content.Attributes["to"]; ok {
		t, ds := hcl.AbsTraversalForExpr(a.Expr)
		diags = append(diags, ds...)
		m.To = t
	}
	if !diags.HasErrors() && movesModule(m.From) != movesModule(m.To) {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid \"moved\" addresses",
			Detail:   "The \"from\" and \"to\" addresses must either both refer to resources or both refer to modules.",
			Subject:  m.DeclRange.Ptr(),
		})
	}
	return m, diags
}

// movesModule reports whether a moved block's address names a module
// (module.a, module.a["x"].module.b), not a resource in one.
func movesModule(t hcl.Traversal) bool {
	return len(t) > 0 && len(modulePrefix(t)) == len(t)
}

// modulePrefix is the part of address t that names a module instance:
// module.a["x"].module.b of module.a["x"].module.b.aws_vpc.main.
func modulePrefix(t hcl.Traversal) hcl.Traversal {
	i := 0
	for i+1 < len(t) {
		if name, ok := nameAt(t, i); !ok || name != "module" {
			break
		}
		i += 2
		if i < len(t) {
			if _, ok := t[i].(hcl.TraverseIndex); ok {
				i++
			}
		}
	}
	return t[:i]
}

// nameAt is the name of t's i-th step: its root, or an attribute.
func nameAt(t hcl.Traversal, i int) (string, bool) {
	if i == 0 && len(t) > 0 {
		return t.RootName(), true
	}
	return stepName(t, i)
}

// removedFromErr is what OpenTofu refuses in a removed block's from: a
// module's or a resource's instance key, a data source, steps past the
// resource's name.
func removedFromErr(t hcl.Traversal) *hcl.Diagnostic {
	mod := modulePrefix(t)
	for _, st := range mod {
		if idx, ok := st.(hcl.TraverseIndex); ok {
			return &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Module instance address with keys is not allowed",
				Detail:   "Module address cannot be a module instance (e.g. \"module.a[0]\"), it must be a module instead (e.g. \"module.a\").",
				Subject:  idx.SrcRange.Ptr(),
			}
		}
	}
	i := len(mod)
	rest := t[i:]
	if len(rest) == 0 {
		return nil
	}
	if first, _ := nameAt(t, i); first == "data" {
		return &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Data source address is not allowed",
			Detail:   "Data sources cannot be destroyed, and therefore, 'removed' blocks are not allowed to target them. To remove data sources from the state, you should remove the data source block from the configuration.",
			Subject:  t.SourceRange().Ptr(),
		}
	}
	switch after := rest[min(2, len(rest)):]; len(after) {
	case 0:
		return nil
	case 1:
		return &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Resource instance address with keys is not allowed",
			Detail:   "Resource address cannot be a resource instance (e.g. \"null_resource.a[0]\"), it must be a resource instead (e.g. \"null_resource.a\").",
			Subject:  after[0].SourceRange().Ptr(),
		}
	default:
		return &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid address",
			Detail:   "Unexpected extra operators after address.",
			Subject:  after[1].SourceRange().Ptr(),
		}
	}
}

func decodeImport(b *hcl.Block) (*Import, hcl.Diagnostics) {
	im := &Import{DeclRange: b.DefRange}
	content, diags := b.Body.Content(&hcl.BodySchema{Attributes: []hcl.AttributeSchema{
		{Name: "to", Required: true}, {Name: "id"}, {Name: "identity"}, {Name: "for_each"}, {Name: "provider"},
	}})
	im.To, im.ID, im.ForEach = attrExpr(content, "to"), attrExpr(content, "id"), attrExpr(content, "for_each")
	if a, ok := content.Attributes["identity"]; ok {
		diags = append(diags, unsupported(a.Range, "Import by identity is not supported", "Kyku imports by ID: give the object's id instead of its identity."))
	}
	if im.ID == nil && content.Attributes["identity"] == nil {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Missing required argument", Detail: "The argument \"id\" is required, but no definition was found.", Subject: b.Body.MissingItemRange().Ptr()})
	}
	if a, ok := content.Attributes["provider"]; ok {
		ref, ds := decodeProviderRef(a.Expr, "provider")
		diags = append(diags, ds...)
		im.Provider = ref
	}
	return im, diags
}

func decodeRemoved(b *hcl.Block) (*Removed, hcl.Diagnostics) {
	r := &Removed{DeclRange: b.DefRange, Destroy: true}
	content, diags := b.Body.Content(&hcl.BodySchema{
		Attributes: []hcl.AttributeSchema{{Name: "from", Required: true}},
		Blocks:     []hcl.BlockHeaderSchema{{Type: "lifecycle"}, {Type: "provisioner", LabelNames: []string{"type"}}, {Type: "connection"}},
	})
	if a, ok := content.Attributes["from"]; ok {
		t, ds := hcl.AbsTraversalForExpr(a.Expr)
		diags = append(diags, ds...)
		if d := removedFromErr(t); d != nil && !ds.HasErrors() {
			diags = append(diags, d)
		}
		r.From = t
	}
	for _, inner := range content.Blocks {
		switch inner.Type {
		case "lifecycle":
			lc, ds := inner.Body.Content(&hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "destroy"}}})
			diags = append(diags, ds...)
			if a, ok := lc.Attributes["destroy"]; ok {
				diags = append(diags, decodeBool(a.Expr, &r.Destroy)...)
			}
		case "provisioner":
			diags = append(diags, provisionerRefused(inner))
		case "connection":
			diags = append(diags, connectionRefused(inner))
		}
	}
	return r, diags
}

func decodeCheck(b *hcl.Block) (*Check, hcl.Diagnostics) {
	c := &Check{Name: b.Labels[0], DeclRange: b.DefRange}
	content, diags := b.Body.Content(&hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{
		{Type: "data", LabelNames: []string{"type", "name"}}, {Type: "assert"},
	}})
	if !validIdentifier(c.Name) {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid check block name", Detail: badIdentifierDetail, Subject: b.LabelRanges[0].Ptr()})
	}
	for _, inner := range content.Blocks {
		switch inner.Type {
		case "data":
			if c.Data != nil {
				diags = append(diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Multiple data resource blocks",
					Detail:   fmt.Sprintf("This check block already has a data resource defined at %s.", c.Data.DeclRange),
					Subject:  inner.DefRange.Ptr(),
				})
				continue
			}
			r, ds := decodeResource(inner, Data)
			diags = append(diags, ds...)
			r.Check = c.Name
			c.Data = r
		case "assert":
			cr, ds := decodeCheckRule(inner)
			diags = append(diags, ds...)
			if !ds.HasErrors() {
				c.Assertions = append(c.Assertions, cr)
			}
		}
	}
	if len(c.Assertions) == 0 {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Zero assert blocks",
			Detail:   "Check blocks must have at least one assert block.",
			Subject:  b.DefRange.Ptr(),
		})
	}
	return c, diags
}
