package cli

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/kyku/action/internal/value"
)

// hclText is v as OpenTofu's output command prints it (its console's
// format): HCL syntax, a list, set or map said with its conversion
// function (tolist, toset, tomap), a string of several lines as a
// heredoc, a typed null with its type. typ is v's type as output -json
// says it ("string", ["list","string"], ["object",{…}]; nil: v's own).
func hclText(v any, typ any, indent int) string {
	v = value.Normalize(v)
	if typ == nil {
		typ = value.TypeJSON(v)
	}
	kind, arg := typeParts(typ)
	if v == nil {
		return nullText(kind, arg)
	}
	switch x := v.(type) {
	case string:
		if text, ok := heredoc(x, indent); ok {
			return text
		}
		return strconv.Quote(x)
	case bool:
		return strconv.FormatBool(x)
	case float64:
		return new(big.Float).SetFloat64(x).Text('f', -1)
	case json.Number:
		if f, _, err := big.ParseFloat(string(x), 10, 512, big.ToNearestEven); err == nil {
			return f.Text('f', -1)
		}
		return string(x)
	case []any:
		elem := func(i int) any {
			if kind == "tuple" {
				if ts, ok := arg.([]any); ok && i < len(ts) {
					return ts[i]
				}
				return nil
			}
			return arg
		}
		text := sequenceText(x, elem, indent)
		if kind == "list" || kind == "set" {
			return "to" + kind + "(" + text + ")"
		}
		return text
	case map[string]any:
		attr := func(k string) any {
			if kind == "object" {
				if as, ok := arg.(map[string]any); ok {
					return as[k]
				}
				return nil
			}
			return arg
		}
		text := mappingText(x, attr, indent)
		if kind == "map" {
			return "tomap(" + text + ")"
		}
		return text
	}
	return fmt.Sprint(v)
}

// typeParts splits a type as output -json says it: its kind and what it
// is of (an element type, attributes' types, elements' types).
func typeParts(typ any) (kind string, arg any) {
	switch t := typ.(type) {
	case string:
		return t, nil
	case []any:
		if len(t) == 2 {
			k, _ := t[0].(string)
			return k, t[1]
		}
	}
	return "dynamic", nil
}

// nullText is a null of a type, as OpenTofu's console says it.
func nullText(kind string, arg any) string {
	switch kind {
	case "dynamic":
		return "null"
	case "string", "number", "bool":
		return "to" + kind + "(null)"
	case "list", "set", "map":
		return fmt.Sprintf("to%s(null) /* of %s */", kind, friendlyType(arg))
	}
	return fmt.Sprintf("null /* %s */", friendlyType([]any{kind, arg}))
}

// friendlyType is a type as cty's FriendlyName says it ("list of string").
func friendlyType(typ any) string {
	kind, arg := typeParts(typ)
	switch kind {
	case "list", "set", "map":
		return kind + " of " + friendlyType(arg)
	case "object":
		return "object"
	case "tuple":
		return "tuple"
	}
	return kind
}

// heredoc is s of two lines or more as a heredoc (indented, <<-, inside
// a collection), its delimiter EOT lengthened past any line that is it.
func heredoc(s string, indent int) (string, bool) {
	lines := strings.Split(s, "\n")
	if len(lines) < 2 {
		return "", false
	}
	op := "<<"
	if indent > 0 {
		op = "<<-"
	}
	delim := "EOT"
	for slices.ContainsFunc(lines, func(l string) bool { return strings.TrimSpace(l) == delim }) {
		delim += "_"
	}
	pad := strings.Repeat(" ", indent)
	var b strings.Builder
	b.WriteString(op + delim)
	for _, l := range lines {
		b.WriteString("\n" + pad + l)
	}
	b.WriteString("\n" + pad + delim)
	return b.String(), true
}

// sequenceText is a list, set or tuple's elements, one a line.
func sequenceText(elems []any, typeOf func(int) any, indent int) string {
	if len(elems) == 0 {
		return "[]"
	}
	pad := strings.Repeat(" ", indent+2)
	var b strings.Builder
	b.WriteString("[")
	for i, e := range elems {
		b.WriteString("\n" + pad + hclText(e, typeOf(i), indent+2) + ",")
	}
	b.WriteString("\n" + strings.Repeat(" ", indent) + "]")
	return b.String()
}

// mappingText is a map or object's elements by key, one a line.
func mappingText(m map[string]any, typeOf func(string) any, indent int) string {
	if len(m) == 0 {
		return "{}"
	}
	pad := strings.Repeat(" ", indent+2)
	var b strings.Builder
	b.WriteString("{")
	for _, k := range slices.Sorted(maps.Keys(m)) {
		b.WriteString("\n" + pad + strconv.Quote(k) + " = " + hclText(m[k], typeOf(k), indent+2))
	}
	b.WriteString("\n" + strings.Repeat(" ", indent) + "}")
	return b.String()
}
