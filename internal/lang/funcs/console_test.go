package funcs

import (
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/kyku/action/internal/lang/ctyvalue"
)

// This file renders results as `tofu console` shows them (OpenTofu's
// internal/repl), so the documented examples compare as printed.

// consoleValue renders a value as tofu console does (ctyvalue.Console).
func consoleValue(v cty.Value, indent int) string { return ctyvalue.Console(v, indent) }

// consoleType renders a type as the console's type() shows it.
func consoleType(ty cty.Type, indent int) string {
	pad := func(n int) string { return strings.Repeat("    ", n) }
	switch {
	case ty.IsObjectType():
		atys := ty.AttributeTypes()
		if len(atys) == 0 {
			return "object({})"
		}
		var b strings.Builder
		b.WriteString("object({\n")
		for _, name := range slices.Sorted(maps.Keys(atys)) {
			b.WriteString(pad(indent+1) + name + ": " + consoleType(atys[name], indent+1) + ",\n")
		}
		return b.String() + pad(indent) + "})"
	case ty.IsTupleType():
		etys := ty.TupleElementTypes()
		if len(etys) == 0 {
			return "tuple([])"
		}
		var b strings.Builder
		b.WriteString("tuple([\n")
		for _, e := range etys {
			b.WriteString(pad(indent+1) + consoleType(e, indent+1) + ",\n")
		}
		return b.String() + pad(indent) + "])"
	case ty.IsListType():
		return "list(" + consoleType(ty.ElementType(), indent) + ")"
	case ty.IsSetType():
		return "set(" + consoleType(ty.ElementType(), indent) + ")"
	case ty.IsMapType():
		return "map(" + consoleType(ty.ElementType(), indent) + ")"
	}
	return ty.FriendlyName()
}

// consoleResult is what the console prints for an evaluation: the value,
// or each error as "Error: summary", a blank line and the detail.
func consoleResult(v cty.Value, diags hcl.Diagnostics) string {
	if diags.HasErrors() {
		var out []string
		for _, d := range diags.Errs() {
			var hd *hcl.Diagnostic
			if e, ok := d.(*hcl.Diagnostic); ok {
				hd = e
			}
			out = append(out, "Error: "+hd.Summary+"\n\n"+hd.Detail)
		}
		return strings.Join(out, "\n\n")
	}
	if ty, ok := TypeOf(v); ok {
		return consoleType(ty, 0)
	}
	return consoleValue(v, 0)
}
