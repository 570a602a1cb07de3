package funcs

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/kyku/action/internal/lang/marks"
)

// This file renders results as `tofu console` shows them (OpenTofu's
// internal/repl), so the documented examples compare as printed.

// consoleValue renders a value; indent is the column it starts at.
func consoleValue(v cty.Value, indent int) string {
	switch {
	case !v.IsKnown():
		return "(known after apply)"
	case v.HasMark(marks.Sensitive):
		return "(sensitive value)"
	case v.HasMark(marks.Ephemeral):
		return "(ephemeral value)"
	case v.IsNull():
		return consoleNull(v.Type())
	}
	v, _ = v.Unmark()
	ty := v.Type()
	switch {
	case ty == cty.String:
		return consoleString(v.AsString(), indent)
	case ty == cty.Number:
		return v.AsBigFloat().Text('f', -1)
	case ty == cty.Bool:
		return strconv.FormatBool(v.True())
	case ty.IsObjectType():
		return consoleMapping(v, indent)
	case ty.IsTupleType():
		return consoleSequence(v, indent)
	case ty.IsListType():
		return "tolist(" + consoleSequence(v, indent) + ")"
	case ty.IsSetType():
		return "toset(" + consoleSequence(v, indent) + ")"
	case ty.IsMapType():
		return "tomap(" + consoleMapping(v, indent) + ")"
	}
	return fmt.Sprintf("%#v", v)
}

func consoleNull(ty cty.Type) string {
	switch {
	case ty == cty.DynamicPseudoType:
		return "null"
	case ty == cty.String:
		return "tostring(null)"
	case ty == cty.Number:
		return "tonumber(null)"
	case ty == cty.Bool:
		return "tobool(null)"
	case ty.IsListType():
		return "tolist(null) /* of " + ty.ElementType().FriendlyName() + " */"
	case ty.IsSetType():
		return "toset(null) /* of " + ty.ElementType().FriendlyName() + " */"
	case ty.IsMapType():
		return "tomap(null) /* of " + ty.ElementType().FriendlyName() + " */"
	}
	return "null /* " + ty.FriendlyName() + " */"
}

// consoleString quotes a one-line string and writes a longer one as a
// heredoc whose delimiter no line uses.
func consoleString(s string, indent int) string {
	lines := strings.Split(s, "\n")
	if len(lines) < 2 {
		return strconv.Quote(s)
	}
	delim := "EOT"
	for slices.ContainsFunc(lines, func(l string) bool { return strings.TrimSpace(l) == delim }) {
		delim += "_"
	}
	op := "<<"
	if indent > 0 {
		op = "<<-"
	}
	pad := strings.Repeat(" ", indent)
	var b strings.Builder
	b.WriteString(op + delim)
	for _, l := range lines {
		b.WriteString("\n" + pad + l)
	}
	b.WriteString("\n" + pad + delim)
	return b.String()
}

func consoleMapping(v cty.Value, indent int) string {
	var b strings.Builder
	b.WriteByte('{')
	pad := strings.Repeat(" ", indent+2)
	for it := v.ElementIterator(); it.Next(); {
		k, e := it.Element()
		b.WriteString("\n" + pad + consoleValue(k, indent+2) + " = " + consoleValue(e, indent+2))
	}
	if v.LengthInt() > 0 {
		b.WriteString("\n" + strings.Repeat(" ", indent))
	}
	b.WriteByte('}')
	return b.String()
}

func consoleSequence(v cty.Value, indent int) string {
	var b strings.Builder
	b.WriteByte('[')
	pad := strings.Repeat(" ", indent+2)
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		b.WriteString("\n" + pad + consoleValue(e, indent+2) + ",")
	}
	if v.LengthInt() > 0 {
		b.WriteString("\n" + strings.Repeat(" ", indent))
	}
	b.WriteByte(']')
	return b.String()
}

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
