package tfconfig

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

func decodeVariable(b *hcl.Block) (*Variable, hcl.Diagnostics) {
	v := &Variable{Name: b.Labels[0], DeclRange: b.DefRange, Type: cty.DynamicPseudoType, Literal: true, Nullable: true}
	content, diags := b.Body.Content(variableSchema)
	if !validIdentifier(v.Name) {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid variable name", Detail: badIdentifierDetail, Subject: b.LabelRanges[0].Ptr()})
	}
	if slices.Contains(reservedVariableNames, v.Name) {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid variable name",
			Detail:   fmt.Sprintf("The variable name %q is reserved due to its special meaning inside module blocks.", v.Name),
			Subject:  b.LabelRanges[0].Ptr(),
		})
	}
	if a, ok := content.Attributes["description"]; ok {
		diags = append(diags, decodeString(a.Expr, &v.Description)...)
	}
	if a, ok := content.Attributes["type"]; ok {
		ty, defaults, literal, ds := decodeVariableType(a.Expr)
		diags = append(diags, ds...)
		v.Type, v.Defaults, v.Literal = ty, defaults, literal
	}
	if a, ok := content.Attributes["sensitive"]; ok {
		diags = append(diags, decodeBool(a.Expr, &v.Sensitive)...)
	}
	if a, ok := content.Attributes["nullable"]; ok {
		diags = append(diags, decodeBool(a.Expr, &v.Nullable)...)
	}
	if a, ok := content.Attributes["deprecated"]; ok {
		diags = append(diags, decodeString(a.Expr, &v.Deprecated)...)
	}
	if a, ok := content.Attributes["const"]; ok {
		diags = append(diags, decodeBool(a.Expr, &v.Const)...)
		v.ConstSet = true
	}
	if a, ok := content.Attributes["ephemeral"]; ok {
		var eph bool
		diags = append(diags, decodeBool(a.Expr, &eph)...)
		if eph {
			diags = append(diags, unsupported(a.Range, "Ephemeral variables are not supported", "Kyku does not run ephemeral values yet: a value marked ephemeral would be kept in the plan."))
		}
	}
	if a, ok := content.Attributes["default"]; ok {
		val, ds := a.Expr.Value(nil)
		diags = append(diags, ds...)
		if !ds.HasErrors() {
			if v.Defaults != nil && !val.IsNull() {
				val = v.Defaults.Apply(val)
			}
			conv, err := convert.Convert(val, v.Type)
			if err != nil {
				diags = append(diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Invalid default value for variable",
					Detail:   fmt.Sprintf("This default value is not compatible with the variable's type constraint: %s.", convertError(err)),
					Subject:  a.Expr.Range().Ptr(),
				})
				conv = cty.DynamicVal
			}
			val = conv
		}
		if !v.Nullable && val.IsNull() {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid default value for variable",
				Detail:   "A null default value is not valid when nullable=false.",
				Subject:  a.Expr.Range().Ptr(),
			})
		}
		v.Default = val
	}
	for _, inner := range content.Blocks {
		cr, ds := decodeCheckRule(inner)
		diags = append(diags, ds...)
		if cr.Condition != nil && !readsVariable(cr.Condition, v.Name) {
			// It would make the variable wait on what else it reads.
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid variable validation condition",
				Detail:   fmt.Sprintf("The condition for variable %q must refer to var.%s in order to test incoming values.", v.Name, v.Name),
				Subject:  cr.Condition.Range().Ptr(),
			})
		}
		v.Validations = append(v.Validations, cr)
	}
	return v, diags
}

// decodeVariableType reads a type constraint; literal says whether a
// value given as text is the string itself (a primitive type) or an HCL
// expression.
func decodeVariableType(expr hcl.Expression) (cty.Type, *typeexpr.Defaults, bool, hcl.Diagnostics) {
	if t, ok := expr.(*hclsyntax.TemplateExpr); ok && t.IsStringLiteral() {
		return cty.DynamicPseudoType, nil, false, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Invalid quoted type constraints",
			Detail:   "OpenTofu 0.11 and earlier required type constraints to be given in quotes, but that form is now deprecated and will be removed in a future version of OpenTofu. Remove the quotes.",
			Subject:  expr.Range().Ptr(),
		}}
	}
	switch hcl.ExprAsKeyword(expr) {
	case "list":
		return cty.List(cty.DynamicPseudoType), nil, false, nil
	case "map":
		return cty.Map(cty.DynamicPseudoType), nil, false, nil
	}
	ty, defaults, diags := typeexpr.TypeConstraintWithDefaults(expr)
	if diags.HasErrors() {
		return cty.DynamicPseudoType, nil, false, diags
	}
	return ty, defaults, ty.IsPrimitiveType(), diags
}

// convertError is cty's conversion error as OpenTofu words it: with
// the path into the value where there is one.
func convertError(err error) string {
	if pe, ok := err.(cty.PathError); ok && len(pe.Path) > 0 {
		return fmt.Sprintf("%s: %s", pathString(pe.Path), pe.Error())
	}
	return err.Error()
}

// pathString writes a cty path as OpenTofu's messages do, in HCL's
// syntax: .a[0]["k"].
func pathString(p cty.Path) string {
	var b strings.Builder
	for _, step := range p {
		switch st := step.(type) {
		case cty.GetAttrStep:
			b.WriteString("." + st.Name)
		case cty.IndexStep:
			k := st.Key
			switch {
			case k.IsNull():
				b.WriteString("[null]")
			case !k.IsKnown():
				b.WriteString("[(not yet known)]")
			case k.Type() == cty.Number:
				b.WriteString("[" + k.AsBigFloat().Text('g', -1) + "]")
			case k.Type() == cty.String:
				b.WriteString("[" + strconv.Quote(k.AsString()) + "]")
			default:
				b.WriteString("[...]")
			}
		}
	}
	return b.String()
}

// readsVariable reports whether expr reads var.name.
func readsVariable(expr hcl.Expression, name string) bool {
	for _, t := range expr.Variables() {
		if t.RootName() != "var" || len(t) < 2 {
			continue
		}
		if a, ok := t[1].(hcl.TraverseAttr); ok && a.Name == name {
			return true
		}
	}
	return false
}
