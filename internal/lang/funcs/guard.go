package funcs

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"

	"github.com/kyku/action/internal/lang/marks"
)

// guarded wraps f so that no error it returns quotes a sensitive or
// ephemeral argument: the text of every marked string (and number) in the
// arguments is replaced by "(sensitive value)" in the message. Functions
// that mention their arguments redact them themselves as OpenTofu's do;
// this also covers go-cty's stdlib, whose messages quote patterns,
// formats and inputs. Results, unknowns and marks are f's own.
func guarded(f function.Function) function.Function {
	params := f.Params()
	outer := make([]function.Parameter, len(params))
	for i, p := range params {
		outer[i] = passThrough(p)
	}
	var varParam *function.Parameter
	if vp := f.VarParam(); vp != nil {
		p := passThrough(*vp)
		varParam = &p
	}
	return function.New(&function.Spec{
		Description: f.Description(),
		Params:      outer,
		VarParam:    varParam,
		Type: func(args []cty.Value) (cty.Type, error) {
			ty, err := f.ReturnTypeForValues(args)
			return ty, scrub(err, args)
		},
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			v, err := f.Call(args)
			if err != nil {
				return v, scrub(err, args)
			}
			return v.WithMarks(droppedMarks(params, f.VarParam(), args)...), nil
		},
	})
}

// droppedMarks are the marks go-cty's Call leaves off an unknown result:
// when an argument is unknown where the function does not take unknowns,
// Call answers unknown without running the function, keeping only the
// marks of the parameters that do not take marked values. The marks of
// the others (a sensitive path given to file, say) are these.
func droppedMarks(params []function.Parameter, varParam *function.Parameter, args []cty.Value) []cty.ValueMarks {
	param := func(i int) *function.Parameter {
		if i < len(params) {
			return &params[i]
		}
		return varParam
	}
	skipped := false
	for i, a := range args {
		p := param(i)
		if p != nil && (!p.AllowUnknown && !a.IsKnown() || !p.AllowDynamicType && a.Type() == cty.DynamicPseudoType) {
			skipped = true
		}
	}
	if !skipped {
		return nil
	}
	var out []cty.ValueMarks
	for i, a := range args {
		if p := param(i); p != nil && p.AllowMarked {
			_, ms := a.UnmarkDeep()
			out = append(out, ms)
		}
	}
	return out
}

// passThrough keeps the parameter's name and type (hclsyntax converts
// arguments to it before the call) and lets every value through to the
// wrapped function, which applies its own rules on unknown, null and
// marked values.
func passThrough(p function.Parameter) function.Parameter {
	p.AllowMarked, p.AllowUnknown, p.AllowNull, p.AllowDynamicType = true, true, true, true
	return p
}

// scrub removes from err's message the text of every marked value in
// args, keeping an argument error's index.
func scrub(err error, args []cty.Value) error {
	if err == nil {
		return nil
	}
	secrets := secretTexts(args)
	if len(secrets) == 0 {
		return err
	}
	msg := err.Error()
	clean := redactTexts(msg, secrets)
	if clean == msg {
		return err
	}
	var argErr function.ArgError
	if errors.As(err, &argErr) {
		return function.NewArgError(argErr.Index, errors.New(clean))
	}
	return errors.New(clean)
}

// minBareSecret is the shortest secret removed wherever it appears; a
// shorter one is removed only where the message quotes it, so "1" does
// not blank every digit of a message.
const minBareSecret = 3

func redactTexts(msg string, secrets map[string]string) string {
	msg = redactQuotedParts(msg, secrets)
	for s, shown := range secrets {
		for _, q := range []string{strconv.Quote(s), "'" + s + "'", "`" + s + "`"} {
			msg = strings.ReplaceAll(msg, q, shown)
		}
		if len(s) >= minBareSecret {
			msg = strings.ReplaceAll(msg, s, shown)
		}
	}
	return msg
}

// quotedPart is a piece of a message in double quotes, single quotes or
// backquotes.
var quotedPart = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("\"(?:[^\"\\\\]|\\\\.)*\"|'[^']*'|`[^`]*`")
})

// redactQuotedParts replaces a quoted piece of msg that is part of a
// secret (yamldecode quoting the tag of a sensitive document, say).
func redactQuotedParts(msg string, secrets map[string]string) string {
	return quotedPart().ReplaceAllStringFunc(msg, func(q string) string {
		inner := q[1 : len(q)-1]
		if unq, err := strconv.Unquote(q); err == nil {
			inner = unq
		}
		if len(inner) < minBareSecret {
			return q
		}
		for s, shown := range secrets {
			if strings.Contains(s, inner) {
				return shown
			}
		}
		return q
	})
}

// secretTexts maps the text of every string and number inside a marked
// part of args to what a message shows instead.
func secretTexts(args []cty.Value) map[string]string {
	out := map[string]string{}
	for _, a := range args {
		if a.ContainsMarked() {
			collectSecrets(a, "", out)
		}
	}
	return out
}

// collectSecrets records the leaves of v; shown is what the marks
// around v make a message show ("" while none is sensitive or ephemeral).
func collectSecrets(v cty.Value, shown string, out map[string]string) {
	v, m := v.Unmark()
	if r := marks.Redacted(m); r != "" {
		shown = r
	}
	if !v.IsKnown() || v.IsNull() {
		return
	}
	ty := v.Type()
	switch {
	case ty == cty.String && shown != "":
		if s := v.AsString(); s != "" {
			out[s] = shown
		}
	case ty == cty.Number && shown != "":
		out[v.AsBigFloat().Text('f', -1)] = shown
	case ty.IsCollectionType() || ty.IsTupleType() || ty.IsObjectType():
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			if ty.IsMapType() {
				collectSecrets(k, shown, out)
			}
			collectSecrets(e, shown, out)
		}
	}
}
