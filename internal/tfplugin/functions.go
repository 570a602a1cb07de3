package tfplugin

import (
	"context"
	"fmt"

	"github.com/zclconf/go-cty/cty"

	"github.com/kyku/action/internal/tfschema"
)

// The functions a provider defines (protocol 5.5 and 6.5 on): listed in
// GetProviderSchema's answer, or by GetFunctions for those a provider
// lists only there, and called with CallFunction, each argument a
// DynamicValue of its parameter's type.

// Functions are the functions the provider defines, by name: those of its
// schema, else those GetFunctions lists (none from a provider that does
// not have the call).
func (p *Provider) Functions(ctx context.Context) (map[string]*tfschema.Function, error) {
	s, err := p.Schema(ctx)
	if err != nil {
		return nil, err
	}
	if len(s.Functions) > 0 {
		return s.Functions, nil
	}
	p.schemaMu.Lock()
	defer p.schemaMu.Unlock()
	if p.functions != nil {
		return p.functions, nil
	}
	d := &functionsDecoder{schemaDecoder: schemaDecoder{protocol: p.protocol, types: map[string]cty.Type{}}}
	err = p.invoke(ctx, p.names.functions, empty{}, d)
	if rpcCode(err) == codeUnimplemented {
		err = nil // a provider of an older protocol: it defines none
	}
	if err != nil {
		return nil, err
	}
	if err := d.diags.Err(); err != nil {
		return nil, fmt.Errorf("provider %s: functions: %w", p.cfg.Name, err)
	}
	p.functions = d.out.Functions
	if p.functions == nil {
		p.functions = map[string]*tfschema.Function{}
	}
	return p.functions, nil
}

// functionsDecoder reads GetFunctions' answer.
type functionsDecoder struct{ schemaDecoder }

func (d *functionsDecoder) decode(b []byte) error {
	return eachField(b, func(f field) error {
		switch {
		case f.isBytes(functionsRespFunctions):
			return d.functionEntry(f.bytes, &d.out.Functions)
		case f.isBytes(functionsRespDiagnostics):
			return decodeDiagnostic(f.bytes, &d.diags)
		}
		return nil
	})
}

// functionEntry reads one map<string, Function> entry into *into.
func (d *schemaDecoder) functionEntry(b []byte, into *map[string]*tfschema.Function) error {
	var name string
	fn := &tfschema.Function{Return: cty.DynamicPseudoType}
	err := eachField(b, func(f field) error {
		switch {
		case f.isBytes(functionEntryKey):
			name = string(f.bytes)
		case f.isBytes(functionEntryValue):
			return d.function(f.bytes, fn)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("function %q: %w", name, err)
	}
	if *into == nil {
		*into = map[string]*tfschema.Function{}
	}
	(*into)[name] = fn
	return nil
}

func (d *schemaDecoder) function(b []byte, fn *tfschema.Function) error {
	return eachField(b, func(f field) error {
		switch {
		case f.isBytes(functionParameters):
			p, err := d.parameter(f.bytes)
			fn.Params = append(fn.Params, p)
			return err
		case f.isBytes(functionVariadicParameter):
			p, err := d.parameter(f.bytes)
			fn.Variadic = &p
			return err
		case f.isBytes(functionReturn):
			return eachField(f.bytes, func(r field) error {
				if r.isBytes(returnType) {
					ty, err := d.typeOf(r.bytes)
					fn.Return = ty
					return err
				}
				return nil
			})
		case f.isBytes(functionSummary):
			fn.Summary = string(f.bytes)
		}
		return nil
	})
}

func (d *schemaDecoder) parameter(b []byte) (tfschema.FunctionParam, error) {
	p := tfschema.FunctionParam{Type: cty.DynamicPseudoType}
	err := eachField(b, func(f field) error {
		switch {
		case f.isBytes(paramName):
			p.Name = string(f.bytes)
		case f.isBytes(paramType):
			ty, err := d.typeOf(f.bytes)
			p.Type = ty
			return err
		case f.isVarint(paramAllowNull):
			p.AllowNull = f.x != 0
		case f.isVarint(paramAllowUnknown):
			p.AllowUnknown = f.x != 0
		}
		return nil
	})
	if err != nil {
		return p, fmt.Errorf("parameter %q: %w", p.Name, err)
	}
	return p, nil
}

// FunctionError is a function's refusal of its arguments (CallFunction's
// FunctionError): Text says why; Argument, when ArgumentSet, is the index
// of the argument refused.
type FunctionError struct {
	Text        string
	Argument    int
	ArgumentSet bool
}

func (e *FunctionError) Error() string { return e.Text }

// ArgumentIndex is the index of the argument refused: Argument, or the
// first when the function named none (as OpenTofu reads the refusal).
func (e *FunctionError) ArgumentIndex() int { return e.Argument }

// CallFunction calls the provider's function name with args, each
// already of its parameter's type (the variadic ones of the variadic
// parameter's), and returns its result as the function's return type.
// A function's refusal is a *FunctionError; any other error is the
// call's.
func (p *Provider) CallFunction(ctx context.Context, name string, args []cty.Value) (cty.Value, error) {
	fns, err := p.Functions(ctx)
	if err != nil {
		return cty.NilVal, err
	}
	fn := fns[name]
	if fn == nil {
		return cty.NilVal, fmt.Errorf("provider %s defines no function %q", p.cfg.Name, name)
	}
	req := callFunctionRequest{name: name, args: make([]dynamicValue, len(args))}
	for i, a := range args {
		param := fn.Variadic
		if i < len(fn.Params) {
			param = &fn.Params[i]
		}
		if param == nil {
			return cty.NilVal, fmt.Errorf("provider %s: function %s takes %d arguments, not %d", p.cfg.Name, name, len(fn.Params), len(args))
		}
		if req.args[i], err = encode(a, param.Type); err != nil {
			return cty.NilVal, fmt.Errorf("provider %s: function %s: argument %d: %w", p.cfg.Name, name, i+1, err)
		}
	}
	var resp callFunctionResponse
	if err := p.invoke(ctx, p.names.callFunction, req, &resp); err != nil {
		return cty.NilVal, err
	}
	if resp.err != nil {
		return cty.NilVal, resp.err
	}
	v, err := resp.result.value(fn.Return)
	if err != nil {
		return cty.NilVal, p.badAnswer("CallFunction", err)
	}
	return v, nil
}

type callFunctionRequest struct {
	name string
	args []dynamicValue
}

func (r callFunctionRequest) appendTo(b []byte) []byte {
	b = appendString(b, callFunctionReqName, r.name)
	for _, a := range r.args {
		b = appendMessage(b, callFunctionReqArguments, a)
	}
	return b
}

type callFunctionResponse struct {
	result dynamicValue
	err    *FunctionError
}

func (r *callFunctionResponse) decode(b []byte) error {
	return eachField(b, func(f field) error {
		switch {
		case f.isBytes(callFunctionRespResult):
			return r.result.decode(f.bytes)
		case f.isBytes(callFunctionRespError):
			r.err = &FunctionError{}
			return eachField(f.bytes, func(e field) error {
				switch {
				case e.isBytes(functionErrorText):
					r.err.Text = string(e.bytes)
				case e.isVarint(functionErrorArgument):
					r.err.Argument, r.err.ArgumentSet = int(int64(e.x)), true
				}
				return nil
			})
		}
		return nil
	})
}
