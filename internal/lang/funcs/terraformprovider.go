package funcs

import (
	"errors"
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// addBuiltinProvider adds the functions of OpenTofu's built-in provider
// (terraform.io/builtin/terraform) as a configuration calls them, under
// the local name it requires the provider by:
// provider::terraform::encode_tfvars.
func addBuiltinProvider(t map[string]function.Function, local string) {
	ns := "provider::" + local + "::"
	t[ns+"encode_tfvars"] = encodeTFVarsFunc
	t[ns+"decode_tfvars"] = decodeTFVarsFunc
	t[ns+"encode_expr"] = encodeExprFunc
}

// encodeTFVarsFunc writes an object as a variables file writes it: one
// attribute a line, in name order.
var encodeTFVarsFunc = function.New(&function.Spec{
	Description: "Encodes an object as the content of a variables (.tfvars) file.",
	Params:      []function.Parameter{{Name: "input", Type: cty.DynamicPseudoType}},
	Type:        function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		v := args[0] // not null: the parameter allows none
		if !v.Type().IsObjectType() {
			return cty.NullVal(cty.String), errors.New("invalid input: must be an object")
		}
		var toks []*hclTok
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			name := k.AsString()
			if !hclsyntax.ValidIdentifier(name) {
				return cty.NullVal(cty.String), fmt.Errorf("invalid input: object key: %s - must be a valid identifier", name)
			}
			if !e.IsWhollyKnown() {
				// OpenTofu fails too (hclwrite panics, caught).
				return cty.NullVal(cty.String), errors.New("input is not wholly known")
			}
			toks = appendAttributeTokens(toks, name, e)
		}
		return cty.StringVal(formatHCL(toks)), nil
	},
})

// decodeTFVarsFunc reads the content of a variables file as an object of
// its attributes' values (literals: a variables file reads nothing).
var decodeTFVarsFunc = function.New(&function.Spec{
	Description: "Decodes the content of a variables (.tfvars) file into an object.",
	Params:      []function.Parameter{{Name: "content", Type: cty.String}},
	Type:        function.StaticReturnType(cty.DynamicPseudoType),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		failed := func(diags hcl.Diagnostics) (cty.Value, error) {
			return cty.NullVal(cty.DynamicPseudoType), errors.Join(append([]error{errors.New("failed to decode tfvars content")}, diags.Errs()...)...)
		}
		f, diags := hclsyntax.ParseConfig([]byte(args[0].AsString()), "", hcl.Pos{Line: 1, Column: 1})
		if f == nil || diags.HasErrors() {
			return failed(diags)
		}
		attrs, diags := f.Body.JustAttributes()
		if diags.HasErrors() {
			return failed(diags)
		}
		vals := make(map[string]cty.Value, len(attrs))
		for name, a := range attrs {
			v, diags := a.Expr.Value(nil)
			if diags.HasErrors() {
				return failed(diags)
			}
			vals[name] = v
		}
		return cty.ObjectVal(vals), nil
	},
})

// encodeExprFunc writes a value as the expression that makes it.
var encodeExprFunc = function.New(&function.Spec{
	Description: "Encodes a value as an expression of the configuration language.",
	Params:      []function.Parameter{{Name: "expr", Type: cty.DynamicPseudoType}},
	Type:        function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		if !args[0].IsWhollyKnown() {
			return cty.NullVal(cty.String), errors.New("input is not wholly known")
		}
		return cty.StringVal(formatHCL(appendValueTokens(nil, args[0]))), nil
	},
})
