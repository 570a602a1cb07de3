package cli

import (
	"github.com/kyku/action/internal/lang/ctyvalue"
	"github.com/kyku/action/internal/value"
)

// hclText is output value v as OpenTofu's output command prints it (its
// console's format, ctyvalue.Console): HCL syntax, a list, set or map
// said with its conversion function, a string of several lines as a
// heredoc. typ is v's type as output -json says it ("string",
// ["list","string"]; nil: v's own). A value that does not fit it is
// printed as Kyku prints values.
func hclText(v, typ any) string {
	cv, err := ctyvalue.Typed(v, typ)
	if err != nil {
		return value.Text(v)
	}
	return ctyvalue.Console(cv, 0)
}

// friendlyType is a type as output -json says it, as cty's FriendlyName
// says it ("list of string"); "" when it is none.
func friendlyType(typ any) string {
	cv, err := ctyvalue.Typed(nil, typ)
	if err != nil {
		return ""
	}
	return cv.Type().FriendlyName()
}
