package tfconfig

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// Body is a resource's own arguments (its meta-arguments apart): the
// attributes and nested blocks, dynamic ones among them, of the native
// syntax, or the attributes of the JSON syntax (whose nested blocks are
// objects and lists of objects).
type Body struct {
	Native *hclsyntax.Body
	JSON   hcl.Attributes
	Range  hcl.Range // where a missing argument would go
}

// traversals are the traversals of every argument of b, its nested
// blocks' included (bodyTraversals).
func (b *Body) traversals() []hcl.Traversal {
	if b.Native != nil {
		return bodyTraversals(b.Native)
	}
	var out []hcl.Traversal
	for _, name := range sortedKeys(b.JSON) {
		out = append(out, b.JSON[name].Expr.Variables()...)
	}
	return out
}

// metaNames are the arguments and block types every resource has.
var (
	resourceMeta       = map[string]bool{"count": true, "for_each": true, "provider": true, "depends_on": true}
	resourceMetaBlocks = map[string]bool{"lifecycle": true, "connection": true, "provisioner": true, "_": true, "locals": true}
	resourceMetaSchema = &hcl.BodySchema{
		Attributes: []hcl.AttributeSchema{{Name: "count"}, {Name: "for_each"}, {Name: "provider"}, {Name: "depends_on"}},
		Blocks: []hcl.BlockHeaderSchema{
			{Type: "lifecycle"}, {Type: "connection"}, {Type: "provisioner", LabelNames: []string{"type"}},
			{Type: "_"}, {Type: "locals"},
		},
	}
	lifecycleSchema = &hcl.BodySchema{
		Attributes: []hcl.AttributeSchema{
			{Name: "create_before_destroy"}, {Name: "prevent_destroy"}, {Name: "ignore_changes"},
			{Name: "replace_triggered_by"}, {Name: "destroy"}, {Name: "enabled"},
		},
		Blocks: []hcl.BlockHeaderSchema{{Type: "precondition"}, {Type: "postcondition"}},
	}
)

func decodeResource(b *hcl.Block, mode Mode) (*Resource, hcl.Diagnostics) {
	r := &Resource{Mode: mode, Type: b.Labels[0], Name: b.Labels[1], DeclRange: b.DefRange, TypeRange: b.LabelRanges[0]}
	what := "resource"
	if mode == Data {
		what = "data"
	}
	content, remain, diags := b.Body.PartialContent(resourceMetaSchema)
	if !validIdentifier(r.Type) {
		summary := "Invalid resource type name"
		if mode == Data {
			summary = "Invalid data source name"
		}
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: badIdentifierDetail, Subject: b.LabelRanges[0].Ptr()})
	}
	if !validIdentifier(r.Name) {
		summary := "Invalid resource name"
		if mode == Data {
			summary = "Invalid data resource name"
		}
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: badIdentifierDetail, Subject: b.LabelRanges[1].Ptr()})
	}
	r.Count, r.ForEach = attrExpr(content, "count"), attrExpr(content, "for_each")
	if a, ok := content.Attributes["provider"]; ok {
		ref, ds := decodeProviderRef(a.Expr, "provider")
		diags = append(diags, ds...)
		r.Provider = ref
	}
	if a, ok := content.Attributes["depends_on"]; ok {
		deps, ds := decodeDependsOn(a)
		diags = append(diags, ds...)
		r.DependsOn = deps
	}
	var escape, lifecycle *hcl.Block
	for _, inner := range content.Blocks {
		switch inner.Type {
		case "lifecycle":
			if lifecycle != nil {
				diags = append(diags, duplicateLifecycle(lifecycle, inner))
				continue
			}
			lifecycle = inner
			diags = append(diags, r.lifecycle(inner)...)
		case "provisioner":
			if mode == Data {
				diags = append(diags, reservedInBlock(inner, what))
				continue
			}
			diags = append(diags, provisionerRefused(inner))
		case "connection":
			if mode == Data {
				diags = append(diags, reservedInBlock(inner, what))
				continue
			}
			diags = append(diags, connectionRefused(inner))
		case "_":
			if escape != nil {
				diags = append(diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Duplicate escaping block",
					Detail:   fmt.Sprintf("The special block type \"_\" can be used to force particular arguments to be interpreted as resource-type-specific rather than as meta-arguments, but each resource block can have only one such block. The first escaping block was at %s.", escape.DefRange),
					Subject:  inner.DefRange.Ptr(),
				})
				continue
			}
			escape = inner
		default:
			diags = append(diags, reservedInBlock(inner, what))
		}
	}
	things := map[Mode]string{Managed: "resources", Data: "data sources"}[mode]
	if d := repetitionConflict(content.Attributes["count"], r.enabledAttr, content.Attributes["for_each"], "may", things); d != nil {
		diags = append(diags, d)
	}
	body, ds := resourceBody(b.Body, remain, escape)
	diags = append(diags, ds...)
	r.Body = body
	if d := builtinRefused(r); d != nil {
		diags = append(diags, d)
	}
	return r, diags
}

// builtinRefused refuses the types OpenTofu's built-in provider does not
// have, rather than look for a provider "terraform" that does not exist.
// terraform_data and terraform_remote_state are served (package
// provider/builtin).
func builtinRefused(r *Resource) *hcl.Diagnostic {
	var detail string
	switch {
	case r.Mode == Managed && r.Type == "terraform_data":
		return nil
	case r.Mode == Data && r.Type == "terraform_remote_state":
		return nil
	case impliedProvider(r.Type) == "terraform":
		detail = fmt.Sprintf("OpenTofu's built-in provider has no %s %q.", map[Mode]string{Managed: "resource type", Data: "data source"}[r.Mode], r.Type)
	default:
		return nil
	}
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unsupported built-in type", Detail: detail, Subject: r.TypeRange.Ptr()}
}

func reservedInBlock(b *hcl.Block, what string) *hcl.Diagnostic {
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  fmt.Sprintf("Reserved block type name in %s block", what),
		Detail:   fmt.Sprintf("The block type name %q is reserved for use by OpenTofu in a future version.", b.Type),
		Subject:  b.TypeRange.Ptr(),
	}
}

// provisionerRefused is the refusal of a provisioner block: a reviewed
// plan must not run commands.
func provisionerRefused(b *hcl.Block) *hcl.Diagnostic {
	instead := "run what it runs in a step of your pipeline after kyku apply, or as the machine's user data (cloud-init)"
	switch b.Labels[0] {
	case "local-exec":
		instead = "run the command in a step of your pipeline after kyku apply"
	case "remote-exec", "file":
		instead = "give the script or file to the machine as user data (cloud-init), or run it from a step of your pipeline after kyku apply"
	}
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Provisioners are not supported",
		Detail:   fmt.Sprintf("Kyku refuses the %s provisioner: a reviewed plan must not run arbitrary commands on the runner or the bot. Instead, %s.", b.Labels[0], instead),
		Subject:  b.DefRange.Ptr(),
	}
}

func connectionRefused(b *hcl.Block) *hcl.Diagnostic {
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Connection blocks are not supported",
		Detail:   "A connection block is for provisioners, which Kyku refuses: a reviewed plan must not run arbitrary commands on the runner or the bot. Remove it.",
		Subject:  b.DefRange.Ptr(),
	}
}

func (r *Resource) lifecycle(b *hcl.Block) hcl.Diagnostics {
	content, diags := b.Body.Content(lifecycleSchema)
	for _, name := range []string{"create_before_destroy", "prevent_destroy", "ignore_changes", "replace_triggered_by", "destroy"} {
		if a, ok := content.Attributes[name]; ok && r.Mode == Data {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid data resource lifecycle argument",
				Detail:   fmt.Sprintf("The lifecycle argument %q is defined only for managed resources (\"resource\" blocks), and is not valid for data resources.", name),
				Subject:  a.NameRange.Ptr(),
			})
		}
	}
	if a, ok := content.Attributes["enabled"]; ok {
		r.Enabled, r.enabledAttr = a.Expr, a
	}
	if r.Mode == Data {
		return append(diags, r.conditions(content)...)
	}
	if a, ok := content.Attributes["create_before_destroy"]; ok {
		diags = append(diags, decodeBool(a.Expr, &r.CreateBeforeDestroy)...)
	}
	if a, ok := content.Attributes["prevent_destroy"]; ok {
		r.PreventDestroy = a.Expr
	}
	if a, ok := content.Attributes["destroy"]; ok {
		r.Destroy = a.Expr
		if _, ds := skipDestroy(a.Expr); ds != nil {
			diags = append(diags, ds...)
		}
	}
	if a, ok := content.Attributes["replace_triggered_by"]; ok {
		exprs, ds := hcl.ExprList(a.Expr)
		diags = append(diags, ds...)
		for _, e := range exprs {
			diags = append(diags, triggerInstanceRefs(e)...)
		}
		r.ReplaceTriggeredBy = exprs
	}
	if a, ok := content.Attributes["ignore_changes"]; ok {
		if hcl.ExprAsKeyword(a.Expr) == "all" {
			r.IgnoreAll = true
		} else {
			exprs, ds := hcl.ExprList(a.Expr)
			diags = append(diags, ds...)
			for _, e := range exprs {
				if t, ok := e.(*hclsyntax.TemplateExpr); ok && t.IsStringLiteral() {
					v, _ := t.Value(nil)
					if v.AsString() == "*" {
						diags = append(diags, &hcl.Diagnostic{
							Severity: hcl.DiagError,
							Summary:  "Invalid ignore_changes wildcard",
							Detail:   "The [\"*\"] form of ignore_changes wildcard is was deprecated and is now invalid. Use \"ignore_changes = all\" to ignore changes to all attributes.",
							Subject:  a.Expr.Range().Ptr(),
						})
						continue
					}
					// The legacy form: a quoted attribute name.
					trav, ds := hclsyntax.ParseTraversalPartial([]byte(v.AsString()), e.Range().Filename, e.Range().Start)
					diags = append(diags, ds...)
					r.IgnoreChanges = append(r.IgnoreChanges, trav)
					continue
				}
				t, ds := hcl.RelTraversalForExpr(e)
				diags = append(diags, ds...)
				if len(t) > 0 {
					r.IgnoreChanges = append(r.IgnoreChanges, t)
				}
			}
		}
	}
	return append(diags, r.conditions(content)...)
}

func (r *Resource) conditions(content *hcl.BodyContent) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, inner := range content.Blocks {
		cr, ds := decodeCheckRule(inner)
		diags = append(diags, ds...)
		if inner.Type == "precondition" {
			r.Preconditions = append(r.Preconditions, cr)
		} else {
			r.Postconditions = append(r.Postconditions, cr)
		}
	}
	return diags
}

// hasMeta reports whether b sets a resource's meta-argument or has one
// of its meta-blocks.
func hasMeta(b *hclsyntax.Body) bool {
	for name := range b.Attributes {
		if resourceMeta[name] {
			return true
		}
	}
	for _, blk := range b.Blocks {
		if resourceMetaBlocks[blk.Type] {
			return true
		}
	}
	return false
}

// resourceBody is the block's own arguments: everything but its
// meta-arguments, with an escaping block's arguments (which may be named
// like meta-arguments).
func resourceBody(whole, remain hcl.Body, escape *hcl.Block) (*Body, hcl.Diagnostics) {
	rng := whole.MissingItemRange()
	if native, ok := whole.(*hclsyntax.Body); ok {
		if escape == nil && !hasMeta(native) {
			// The body is its own arguments already (most are): kept as
			// parsed rather than copied, it is one fewer body and map per
			// resource.
			return &Body{Native: native, Range: rng}, nil
		}
		out := &hclsyntax.Body{Attributes: hclsyntax.Attributes{}, SrcRange: native.SrcRange, EndRange: native.EndRange}
		for name, a := range native.Attributes {
			if !resourceMeta[name] {
				out.Attributes[name] = a
			}
		}
		for _, b := range native.Blocks {
			if !resourceMetaBlocks[b.Type] {
				out.Blocks = append(out.Blocks, b)
			}
		}
		var diags hcl.Diagnostics
		if escape != nil {
			if e, ok := escape.Body.(*hclsyntax.Body); ok {
				for name, a := range e.Attributes {
					if _, dup := out.Attributes[name]; dup {
						diags = append(diags, &hcl.Diagnostic{
							Severity: hcl.DiagError,
							Summary:  "Duplicate argument",
							Detail:   fmt.Sprintf("The argument %q was already set at %s.", name, out.Attributes[name].NameRange),
							Subject:  a.NameRange.Ptr(),
						})
						continue
					}
					out.Attributes[name] = a
				}
				out.Blocks = append(out.Blocks, e.Blocks...)
			}
		}
		return &Body{Native: out, Range: rng}, diags
	}
	bodies := []hcl.Body{remain}
	if escape != nil {
		bodies = append(bodies, escape.Body)
	}
	attrs, diags := hcl.MergeBodies(bodies).JustAttributes()
	return &Body{JSON: attrs, Range: rng}, diags
}

// validIdentifier is hclsyntax.ValidIdentifier(s), which runs hcl's lexer
// over s: an ASCII name of letters, digits, _ and - not starting with a
// digit or - is one without it (two for each of 50,000 resource blocks).
func validIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_':
		case i > 0 && (c >= '0' && c <= '9' || c == '-'):
		default:
			return hclsyntax.ValidIdentifier(s)
		}
	}
	return true
}

// repetitionConflict is OpenTofu's refusal of more than one of count,
// lifecycle enabled and for_each (nil when at most one is set), over the
// range from the first to the last one's name; verb and things end its
// detail ("may", "resources"; "should", "module instances").
func repetitionConflict(count, enabled, forEach *hcl.Attribute, verb, things string) *hcl.Diagnostic {
	var names []string
	var ranges []hcl.Range
	for _, a := range []struct {
		name string
		attr *hcl.Attribute
	}{{"count", count}, {"enabled", enabled}, {"for_each", forEach}} {
		if a.attr != nil {
			names = append(names, `"`+a.name+`"`)
			ranges = append(ranges, a.attr.NameRange)
		}
	}
	if len(names) < 2 {
		return nil
	}
	slices.SortStableFunc(ranges, func(a, b hcl.Range) int { return a.Start.Byte - b.Start.Byte })
	what := strings.Join(names, " and ")
	if len(names) == 3 {
		what = names[0] + ", " + names[1] + ", and " + names[2]
	}
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Invalid combination of " + what,
		Detail:   fmt.Sprintf("The %s meta-arguments are mutually-exclusive. Only one %s be used to be explicit about the number of %s to be created.", what, verb, things),
		Subject:  hcl.RangeBetween(ranges[0], ranges[len(ranges)-1]).Ptr(),
	}
}

// duplicateLifecycle refuses a second lifecycle block (again) in a
// resource's or a module call's block (first is the first one), in
// OpenTofu's words.
func duplicateLifecycle(first, again *hcl.Block) *hcl.Diagnostic {
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Duplicate lifecycle block",
		Detail:   fmt.Sprintf("This resource already has a lifecycle block at %s.", first.DefRange),
		Subject:  again.DefRange.Ptr(),
	}
}

// triggerInstanceRefs refuses, as OpenTofu does when it reads the file,
// each.value and count's other attributes in a replace_triggered_by
// entry: only each.key and count.index may pick the instance it names.
func triggerInstanceRefs(expr hcl.Expression) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, t := range expr.Variables() {
		attr, _ := stepName(t, 1)
		switch root := t.RootName(); {
		case root == "each" && attr != "key":
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid each reference in replace_triggered_by expression",
				Detail:   "Only each.key may be used in replace_triggered_by.",
				Subject:  expr.Range().Ptr(),
			})
		case root == "count" && attr != "index":
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid count reference in replace_triggered_by expression",
				Detail:   "Only count.index may be used in replace_triggered_by.",
				Subject:  expr.Range().Ptr(),
			})
		}
	}
	return diags
}

// skipDestroy is what lifecycle destroy (expr, nil: none) says: true for
// destroy = false, whose object is forgotten where it would be destroyed.
// OpenTofu 1.12 takes a constant bool only.
func skipDestroy(expr hcl.Expression) (bool, hcl.Diagnostics) {
	if expr == nil {
		return false, nil
	}
	v, diags := expr.Value(nil)
	if diags.HasErrors() || v.Type() != cty.Bool || !v.IsKnown() || v.IsNull() {
		return false, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Invalid lifecycle destroy expression",
			Detail:   "The lifecycle destroy expression must be a boolean constant.",
			Subject:  expr.Range().Ptr(),
		}}
	}
	return v.False(), nil
}
