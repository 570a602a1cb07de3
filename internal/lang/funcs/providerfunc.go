package funcs

import (
	"errors"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"

	"github.com/kyku/action/internal/tfschema"
)

// ProviderFunction is a function a provider defines (a configuration
// calls it provider::NAME::FUNCTION), of signature spec, made by call
// (the provider's CallFunction). As OpenTofu calls them: the arguments
// are converted to the parameters' types, a null refused where the
// parameter does not take one, the marks of sensitive arguments taken off
// and put on the result; an argument not wholly known where its parameter
// does not take unknowns makes the result unknown without a call. An
// error call returns that says which argument it refuses
// (ArgumentIndex) is that argument's; any other refusal is the first
// argument's, as OpenTofu reads a refusal without an argument.
func ProviderFunction(spec *tfschema.Function, call func(args []cty.Value) (cty.Value, error)) function.Function {
	params := make([]function.Parameter, len(spec.Params))
	for i, p := range spec.Params {
		params[i] = providerParam(p)
	}
	var varParam *function.Parameter
	if spec.Variadic != nil {
		p := providerParam(*spec.Variadic)
		varParam = &p
	}
	param := func(i int) *function.Parameter {
		if i < len(params) {
			return &params[i]
		}
		return varParam
	}
	return function.New(&function.Spec{
		Description: spec.Summary,
		Params:      params,
		VarParam:    varParam,
		Type:        function.StaticReturnType(spec.Return),
		Impl: func(args []cty.Value, ret cty.Type) (cty.Value, error) {
			for i, a := range args {
				if p := param(i); p != nil && !p.AllowUnknown && !a.IsWhollyKnown() {
					return cty.UnknownVal(ret), nil
				}
			}
			v, err := call(args)
			if err == nil {
				return v, nil
			}
			var ae interface{ ArgumentIndex() int }
			if errors.As(err, &ae) && len(args) > 0 {
				i := ae.ArgumentIndex()
				if i < 0 || i >= len(args) {
					i = 0
				}
				return cty.UnknownVal(ret), function.NewArgError(i, err)
			}
			return cty.UnknownVal(ret), err
		},
	})
}

// ProviderFunctions are the functions of one provider, specs by name, as
// ProviderFunction makes them, each called through call with its name.
func ProviderFunctions(specs map[string]*tfschema.Function, call func(name string, args []cty.Value) (cty.Value, error)) map[string]function.Function {
	out := make(map[string]function.Function, len(specs))
	for name, spec := range specs {
		out[name] = ProviderFunction(spec, func(args []cty.Value) (cty.Value, error) { return call(name, args) })
	}
	return out
}

// providerParam is a provider function's parameter as go-cty takes it.
func providerParam(p tfschema.FunctionParam) function.Parameter {
	return function.Parameter{Name: p.Name, Type: p.Type, AllowNull: p.AllowNull, AllowUnknown: p.AllowUnknown}
}
