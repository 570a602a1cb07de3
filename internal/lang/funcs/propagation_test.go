package funcs

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"github.com/zclconf/go-cty/cty/function"

	"github.com/kyku/action/internal/lang/marks"
)

// call is a documented example that calls its section's function
// directly: the function and its arguments, converted to its
// parameters' types as hclsyntax converts them.
type call struct {
	name string
	fn   function.Function
	args []cty.Value
	want cty.Value
}

// changesEachCall are the functions whose result differs from call to
// call, so a result is compared only in kind.
// type answers a type, not a value of it.
var changesEachCall = map[string]bool{"bcrypt": true, "uuid": true, "type": true}

// unused reports whether call c does not read its argument i, so its
// marks need not reach the result: lookup's default when the key is there.
func unused(c call, name string, i int) bool {
	if name != "lookup" || i != 2 {
		return false
	}
	_, err := c.fn.Call(c.args[:2])
	return err == nil
}

// documentedCalls collects every example "name(args...)" of section
// name whose arguments evaluate and whose call succeeds.
func documentedCalls(t *testing.T) []call {
	t.Helper()
	ctx := docsContext(t)
	var out []call
	for _, path := range exampleFiles(t) {
		for _, ex := range readExamples(t, path).examples {
			expr, diags := hclsyntax.ParseExpression([]byte(ex.expr), "<example>", hcl.Pos{Line: 1, Column: 1})
			fc, ok := expr.(*hclsyntax.FunctionCallExpr)
			if diags.HasErrors() || !ok || fc.Name != ex.fn || fc.ExpandFinal || ex.skip != "" {
				continue
			}
			f := ctx.Functions[fc.Name]
			args, ok := convertedArgs(ctx, f, fc.Args)
			if !ok {
				continue
			}
			want, err := f.Call(args)
			if err != nil {
				continue // a documented error
			}
			out = append(out, call{name: fmt.Sprintf("%s:%d %s", filepath.Base(path), ex.line, ex.fn), fn: f, args: args, want: want})
		}
	}
	return out
}

func convertedArgs(ctx *hcl.EvalContext, f function.Function, exprs []hclsyntax.Expression) ([]cty.Value, bool) {
	params := f.Params()
	args := make([]cty.Value, len(exprs))
	for i, e := range exprs {
		p := f.VarParam()
		if i < len(params) {
			p = &params[i]
		}
		if p == nil {
			return nil, false
		}
		v, diags := e.Value(ctx)
		if diags.HasErrors() {
			return nil, false
		}
		v, err := convert.Convert(v, p.Type)
		if err != nil {
			return nil, false
		}
		args[i] = v
	}
	return args, true
}

// with is args with argument i v, converted to its parameter's type as
// hclsyntax converts arguments.
func with(f function.Function, args []cty.Value, i int, v cty.Value) []cty.Value {
	p := f.VarParam()
	if i < len(f.Params()) {
		p = &f.Params()[i]
	}
	if conv, err := convert.Convert(v, p.Type); err == nil {
		v = conv
	}
	out := append([]cty.Value(nil), args...)
	out[i] = v
	return out
}

// consistent reports whether got (perhaps partly unknown) could be want:
// known parts equal, unknown parts anything.
// A result of another type is compared converted to want's, as HCL
// converts values where they are used (coalesce(1, x) is a number while
// x has no known type, a string once x is one).
func consistent(got, want cty.Value) bool {
	got, _ = got.UnmarkDeep()
	want, _ = want.UnmarkDeep()
	if !got.Type().Equals(want.Type()) {
		if conv, err := convert.Convert(got, want.Type()); err == nil {
			got = conv
		}
	}
	eq := got.Equals(want)
	return !eq.IsKnown() || eq.True()
}

// TestUnknownArgumentsGiveUnknownResults calls every function of every
// documented call with each argument unknown (of its type, of no known
// type, and with an unknown inside it): the call succeeds, and what it
// answers is unknown or what the known arguments gave.
func TestUnknownArgumentsGiveUnknownResults(t *testing.T) {
	covered := map[string]bool{}
	for _, c := range documentedCalls(t) {
		covered[strings.Fields(c.name)[1]] = true
		for i, a := range c.args {
			variants := map[string]cty.Value{
				"unknown":         cty.UnknownVal(a.Type()),
				"of unknown type": cty.DynamicVal,
			}
			if inner, ok := unknownInside(a); ok {
				variants["with an unknown inside"] = inner
			}
			for kind, v := range variants {
				got, err := c.fn.Call(with(c.fn, c.args, i, v))
				if err != nil {
					t.Errorf("%s: argument %d %s: %v", c.name, i, kind, err)
					continue
				}
				if !changesEachCall[strings.Fields(c.name)[1]] && !consistent(got, c.want) {
					t.Errorf("%s: argument %d %s gave %#v, which %#v cannot be", c.name, i, kind, got, c.want)
				}
			}
		}
	}
	assertCovered(t, covered)
}

// unknownInside is v with its first primitive element unknown.
func unknownInside(v cty.Value) (cty.Value, bool) {
	ty := v.Type()
	if v.ContainsMarked() || v.IsNull() || !(ty.IsCollectionType() || ty.IsTupleType() || ty.IsObjectType()) || v.LengthInt() == 0 {
		return v, false
	}
	done := false
	out, err := cty.Transform(v, func(p cty.Path, e cty.Value) (cty.Value, error) {
		if !done && len(p) > 0 && e.Type().IsPrimitiveType() && !e.IsNull() {
			done = true
			return cty.UnknownVal(e.Type()), nil
		}
		return e, nil
	})
	return out, err == nil && done
}

// markActors are the functions whose job is marks: they are exempt from
// carrying a sensitive argument's mark.
var markActors = map[string]bool{"nonsensitive": true, "issensitive": true}

// TestSensitiveArgumentsGiveSensitiveResults calls every documented call
// with each argument sensitive, known and unknown: the result is
// sensitive (somewhere in it) and otherwise the same.
func TestSensitiveArgumentsGiveSensitiveResults(t *testing.T) {
	covered := map[string]bool{}
	for _, c := range documentedCalls(t) {
		name := strings.Fields(c.name)[1]
		covered[name] = true
		for i, a := range c.args {
			for kind, v := range map[string]cty.Value{
				"sensitive":         a.Mark(marks.Sensitive),
				"sensitive unknown": cty.UnknownVal(a.Type()).Mark(marks.Sensitive),
			} {
				got, err := c.fn.Call(with(c.fn, c.args, i, v))
				if err != nil {
					t.Errorf("%s: argument %d %s: %v", c.name, i, kind, err)
					continue
				}
				if markActors[name] || unused(c, name, i) {
					continue
				}
				if !marks.Contains(got, marks.Sensitive) {
					t.Errorf("%s: argument %d %s gave %#v, not sensitive", c.name, i, kind, got)
				}
				if !changesEachCall[name] && !consistent(got, c.want) {
					t.Errorf("%s: argument %d %s gave %#v, which %#v cannot be", c.name, i, kind, got, c.want)
				}
			}
		}
	}
	assertCovered(t, covered)
}

// assertCovered fails for a function of the table with parameters that
// no documented call reached.
func assertCovered(t *testing.T, covered map[string]bool) {
	t.Helper()
	opts := docsOptions(docsDir(t))
	opts.Console = true
	console := Table(opts)
	for name, f := range Table(docsOptions(docsDir(t))) {
		if strings.HasPrefix(name, CoreNamespace) || covered[name] {
			continue
		}
		switch name {
		case "try", "can": // they take expressions, tested in TestTryAndCan
		case "list", "map": // removed: TestRemovedFunctions
		default:
			if len(f.Params()) > 0 || f.VarParam() != nil {
				t.Errorf("no documented call of %s reached the propagation tests", name)
			}
		}
	}
	if !covered["type"] && len(console["type"].Params()) > 0 {
		t.Error("no documented call of type reached the propagation tests")
	}
}
