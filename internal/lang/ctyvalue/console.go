package ctyvalue

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/zclconf/go-cty/cty"

	"github.com/kyku/action/internal/lang/marks"
)

// Console is v as OpenTofu's console (and its output command) prints
// it: HCL syntax, a list, set or map said with its conversion function
// (tolist, toset, tomap), a string of several lines as a heredoc, a typed
// null with its type. indent is the column it starts at.
func Console(v cty.Value, indent int) string {
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
		b.WriteString("\n" + pad + Console(k, indent+2) + " = " + Console(e, indent+2))
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
		b.WriteString("\n" + pad + Console(e, indent+2) + ",")
	}
	if v.LengthInt() > 0 {
		b.WriteString("\n" + strings.Repeat(" ", indent))
	}
	b.WriteByte(']')
	return b.String()
}
