package tfconfig

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// A provider's functions are called provider::NAME::FUNCTION (or
// provider::NAME::ALIAS::FUNCTION), NAME a local name the module's
// required_providers gives the provider. The names are found in the
// files as they are loaded (FunctionCall); the functions are asked of the
// providers (Inputs.ProviderFunctions) once, before anything is
// evaluated, so that a name the provider does not define is said where it
// is called, in OpenTofu's words, and a provider not called for its
// functions is not started for them.

// FunctionCall is a call of a provider's function in a module's files.
type FunctionCall struct {
	Name  string // provider::NAME::FUNCTION as written
	Range hcl.Range
}

// ProviderFunctions returns the functions the provider of local name
// local, source source and version constraint version defines, by their
// names (FUNCTION), ready to call (funcs.ProviderFunction). Called once
// per provider a configuration calls functions of.
type ProviderFunctions func(local, source, version string) (map[string]function.Function, error)

// providerPrefix starts the name of every provider's function.
const providerPrefix = "provider::"

// functionCalls are the calls of providers' functions in f.
func functionCalls(f *hcl.File) []FunctionCall {
	if !bytes.Contains(f.Bytes, []byte(providerPrefix)) {
		return nil
	}
	body, ok := f.Body.(*hclsyntax.Body)
	if !ok {
		return jsonFunctionCalls(f)
	}
	var out []FunctionCall
	_ = hclsyntax.VisitAll(body, func(n hclsyntax.Node) hcl.Diagnostics {
		if c, ok := n.(*hclsyntax.FunctionCallExpr); ok && strings.HasPrefix(c.Name, providerPrefix) {
			out = append(out, FunctionCall{Name: c.Name, Range: c.NameRange})
		}
		return nil
	})
	return out
}

// jsonCall is a provider's function called in a template of a JSON file
// (built on first use: nothing at start-up).
var jsonCall = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`provider::[A-Za-z_][A-Za-z0-9_-]*(?:::[A-Za-z_][A-Za-z0-9_-]*){1,2}\s*\(`)
})

// jsonFunctionCalls are the calls in a JSON file's strings (its
// templates are parsed only when evaluated): found in its text, each
// where its name starts.
func jsonFunctionCalls(f *hcl.File) []FunctionCall {
	var out []FunctionCall
	for _, at := range jsonCall().FindAllIndex(f.Bytes, -1) {
		name := strings.TrimRight(string(f.Bytes[at[0]:at[1]-1]), " \t\r\n")
		start := posAt(f.Bytes, at[0])
		end := start
		end.Byte, end.Column = start.Byte+len(name), start.Column+len(name)
		out = append(out, FunctionCall{Name: name, Range: hcl.Range{Filename: fileName(f), Start: start, End: end}})
	}
	return out
}

// fileName is the name f was parsed as.
func fileName(f *hcl.File) string {
	if r := f.Body.MissingItemRange(); r.Filename != "" {
		return r.Filename
	}
	return ""
}

// posAt is the position of byte offset at in src.
func posAt(src []byte, at int) hcl.Pos {
	line := 1 + bytes.Count(src[:at], []byte("\n"))
	col := at - (bytes.LastIndexByte(src[:at], '\n') + 1) + 1
	return hcl.Pos{Line: line, Column: col, Byte: at}
}

// providerFunctions are the functions of m's providers (and its
// children's) that its files call, by the names they call them; a call
// of a provider the module does not require, or of a function its
// provider does not define, is an error where it is called, its name
// served by a function returning an unknown value so that nothing else
// is said of the call. Without Inputs.ProviderFunctions (kyku init,
// before the providers are installed) every call's value is unknown.
func (ev *evaluator) providerFunctions(m *Module) map[string]function.Function {
	out := map[string]function.Function{}
	asked := map[string]providerFunctionSet{} // by source
	builtin := map[*Module][]string{}         // builtinNames, by module
	eachFunctionCall(m, func(m *Module, c FunctionCall, local, fn string) {
		if _, ok := builtin[m]; !ok {
			builtin[m] = builtinNames(m)
		}
		if _, done := out[c.Name]; done || slices.Contains(builtin[m], local) {
			return // funcs.Options.BuiltinProvider serves the built-in provider's
		}
		rp := m.RequiredProviders[local]
		switch {
		case rp == nil:
			ev.providerFunctionError(out, c, "Unknown function provider", fmt.Sprintf("Provider %q does not exist within the required_providers of this module", local))
			return
		case ev.in.ProviderFunctions == nil:
			out[c.Name] = unknownFunction()
			return
		}
		src := providerSource(m, local)
		set, ok := asked[sourceKey(src)]
		if !ok {
			set.fns, set.err = ev.in.ProviderFunctions(local, src, rp.Version)
			asked[sourceKey(src)] = set
		}
		switch f, ok := set.fns[fn]; {
		case set.err != nil:
			ev.providerFunctionError(out, c, "Failed to load provider functions", fmt.Sprintf("The functions of provider %q (%s) could not be listed: %s.", local, src, set.err))
		case !ok:
			ev.providerFunctionError(out, c, "Function not found in provider", fmt.Sprintf("Function %q was not registered by provider", c.Name))
		default:
			out[c.Name] = f
		}
	})
	return out
}

// eachFunctionCall calls f with each call of a provider's function in m
// and the modules it calls, the module it is in, the local name of the
// provider it names and the function's name; a name no provider's
// function has is left to hcl to say.
func eachFunctionCall(m *Module, f func(m *Module, c FunctionCall, local, fn string)) {
	for _, c := range m.FunctionCalls {
		if parts := strings.Split(c.Name, "::"); len(parts) == 3 || len(parts) == 4 {
			f(m, c, parts[1], parts[len(parts)-1])
		}
	}
	for _, name := range sortedKeys(m.Children) {
		if child := m.Children[name]; child != nil {
			eachFunctionCall(child, f)
		}
	}
}

// providerFunctionSet is what a provider answered for its functions.
type providerFunctionSet struct {
	fns map[string]function.Function
	err error
}

// providerFunctionError says summary and detail at call c, and serves its
// name with unknownFunction.
func (ev *evaluator) providerFunctionError(out map[string]function.Function, c FunctionCall, summary, detail string) {
	ev.diags = append(ev.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: c.Range.Ptr()})
	out[c.Name] = unknownFunction()
}

// unknownFunction takes anything and returns an unknown value: the
// function of a call that is said wrong already, or whose provider is not
// installed yet.
var unknownFunction = sync.OnceValue(func() function.Function {
	return function.New(&function.Spec{
		VarParam: &function.Parameter{Name: "args", Type: cty.DynamicPseudoType, AllowNull: true, AllowUnknown: true, AllowDynamicType: true, AllowMarked: true},
		Type:     function.StaticReturnType(cty.DynamicPseudoType),
		Impl: func([]cty.Value, cty.Type) (cty.Value, error) {
			return cty.DynamicVal, nil
		},
	})
})
