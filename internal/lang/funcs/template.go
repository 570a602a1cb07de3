package funcs

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// defaultTemplateDepth is how deep templatefile may call itself unless
// TF_TEMPLATE_RECURSION_DEPTH says otherwise.
const defaultTemplateDepth = 1024

// templateStringName is the file name a templatestring's diagnostics
// carry (OpenTofu's).
const templateStringName = "NoFileNeeded"

// templateDepthError is the error of a templatefile nested too deep;
// each level adds where it called.
type templateDepthError struct{ calls []string }

func (e templateDepthError) Error() string {
	var trace []string
	for _, c := range e.calls[:min(16, len(e.calls))] {
		seen := slices.Contains(trace, c)
		trace = append(trace, c)
		if seen {
			break
		}
	}
	return fmt.Sprintf("maximum recursion depth %d reached in %s ... ", max(len(e.calls)-1, 0), strings.Join(trace, ", "))
}

// templateFileFunc renders the template in a file with the given
// variables and the function table tables returns, in which
// templatefile is one level deeper.
func templateFileFunc(opts Options, tables func() map[string]function.Function, depth int) function.Function {
	f := filesOf(opts)
	load := func(pathArg cty.Value) (hcl.Expression, error) {
		limit := defaultTemplateDepth
		if s := opts.Getenv("TF_TEMPLATE_RECURSION_DEPTH"); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil {
				return nil, fmt.Errorf("invalid value for TF_TEMPLATE_RECURSION_DEPTH: %w", err)
			}
			limit = n
		}
		if depth > limit {
			return nil, templateDepthError{}
		}
		pv, ms := pathArg.Unmark()
		path := pv.AsString()
		src, err := f.readText(path, ms)
		if err != nil {
			return nil, err
		}
		expr, diags := hclsyntax.ParseTemplate([]byte(src), path, hcl.Pos{Line: 1, Column: 1, Byte: 0})
		if diags.HasErrors() {
			return nil, diags
		}
		return expr, nil
	}
	nested := func() map[string]function.Function {
		t := maps.Clone(tables())
		deeper := templateFileFunc(opts, tables, depth+1)
		t["templatefile"], t[CoreNamespace+"templatefile"] = deeper, deeper
		return t
	}
	return function.New(&function.Spec{
		Params: []function.Parameter{
			{Name: "path", Type: cty.String, AllowMarked: true},
			{Name: "vars", Type: cty.DynamicPseudoType},
		},
		Type: func(args []cty.Value) (cty.Type, error) {
			if !args[0].IsKnown() || !args[1].IsKnown() {
				return cty.DynamicPseudoType, nil
			}
			expr, err := load(args[0])
			if err != nil {
				return cty.DynamicPseudoType, err
			}
			v, err := render(expr, args[1], nested())
			return v.Type(), err
		},
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			expr, err := load(args[0])
			if err != nil {
				return cty.DynamicVal, err
			}
			v, err := render(expr, args[1], nested())
			return v.WithMarks(args[0].Marks()), err
		},
	})
}

// templateStringFunc renders a template given as a string. Marks on the
// variables stay on the parts of the result made from them.
func templateStringFunc(tables func() map[string]function.Function) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{
			{Name: "data", Type: cty.String, AllowMarked: true},
			{Name: "vars", Type: cty.DynamicPseudoType, AllowMarked: true},
		},
		Type: func(args []cty.Value) (cty.Type, error) {
			if !args[0].IsKnown() || !args[1].IsKnown() {
				return cty.DynamicPseudoType, nil
			}
			v, err := renderString(args, tables())
			return v.Type(), err
		},
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			return renderString(args, tables())
		},
	})
}

func renderString(args []cty.Value, table map[string]function.Function) (cty.Value, error) {
	data, dm := args[0].Unmark()
	vars, vm := args[1].Unmark()
	expr, diags := hclsyntax.ParseTemplate([]byte(data.AsString()), templateStringName, hcl.Pos{Line: 1, Column: 1, Byte: 0})
	if diags.HasErrors() {
		return cty.DynamicVal, diags
	}
	v, err := render(expr, vars, table)
	return v.WithMarks(dm, vm), err
}

// render evaluates a template with vars (a map or object) as its only
// variables.
func render(expr hcl.Expression, vars cty.Value, table map[string]function.Function) (cty.Value, error) {
	if ty := vars.Type(); !ty.IsMapType() && !ty.IsObjectType() {
		return cty.DynamicVal, function.NewArgErrorf(1, "invalid vars value: must be a map")
	}
	ctx := &hcl.EvalContext{Variables: vars.AsValueMap(), Functions: table}
	for _, name := range slices.Sorted(maps.Keys(ctx.Variables)) {
		if !hclsyntax.ValidIdentifier(name) {
			return cty.DynamicVal, function.NewArgErrorf(1, "invalid template variable name %q: must start with a letter, followed by zero or more letters, digits, and underscores", name)
		}
	}
	file := expr.Range().Filename
	for _, tr := range expr.Variables() {
		root := tr.RootName()
		if _, ok := ctx.Variables[root]; ok {
			continue
		}
		if file == templateStringName {
			return cty.DynamicVal, function.NewArgErrorf(1, "vars map does not contain key %q", root)
		}
		return cty.DynamicVal, function.NewArgErrorf(1, "vars map does not contain key %q, referenced at %s", root, tr[0].SourceRange())
	}
	v, diags := expr.Value(ctx)
	if !diags.HasErrors() {
		return v, nil
	}
	for _, d := range diags {
		extra, ok := d.Extra.(hclsyntax.FunctionCallDiagExtra)
		if !ok || strings.TrimPrefix(extra.CalledFunctionName(), CoreNamespace) != "templatefile" {
			continue
		}
		if deep, ok := extra.FunctionCallError().(templateDepthError); ok {
			return cty.DynamicVal, templateDepthError{calls: append(deep.calls, d.Subject.String())}
		}
	}
	return cty.DynamicVal, diags
}
