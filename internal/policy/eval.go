package policy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/topdown"

	"github.com/kyku/action/internal/diag"
)

// unsafe are the built-ins a policy may not call: they reach outside the
// process (the network, the process environment with its tokens and keys).
var unsafe = sync.OnceValue(func() map[string]struct{} {
	return map[string]struct{}{
		ast.HTTPSend.Name:             {},
		ast.NetLookupIPAddr.Name:      {},
		ast.OPARuntime.Name:           {},
		ast.Trace.Name:                {},
		ast.RegoParseModule.Name:      {}, // no reason to parse code at run time
		ast.GraphQLSchemaIsValid.Name: {},
	}
})

// Evaluate compiles the set and evaluates data.kyku.deny and
// data.kyku.warn against in, within timeout (DefaultTimeout when <= 0) and
// ctx. A policy that does not parse or compile, no module declaring
// package kyku, a run-time error, a deny or warn that is not a set of
// messages, and a timeout are an *Error with the file and line; nothing
// is ever treated as "no denial" because it could not be evaluated.
func (s *Set) Evaluate(ctx context.Context, in Input, timeout time.Duration) (*Result, error) {
	if s.Empty() {
		return &Result{}, nil
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	compiler, err := s.compile()
	if err != nil {
		return nil, err
	}
	doc, err := in.document()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res := &Result{Files: s.Files()}
	for _, rule := range []struct {
		name string
		msgs *[]string
		more *int
	}{{"deny", &res.Deny, &res.MoreDeny}, {"warn", &res.Warn, &res.MoreWarn}} {
		vals, err := s.query(ctx, compiler, rule.name, doc, nil)
		if err != nil {
			if ctx.Err() != nil {
				return nil, s.timedOut(compiler, rule.name, doc, timeout)
			}
			return nil, s.evalError(err, rule.name)
		}
		msgs, err := messages(vals, rule.name, s.ruleAt(compiler, rule.name))
		if err != nil {
			return nil, err
		}
		if len(msgs) > MaxMessages {
			*rule.more = len(msgs) - MaxMessages
			msgs = msgs[:MaxMessages]
		}
		*rule.msgs = msgs
	}
	return res, nil
}

// compile parses every module (every problem of every file reported) and
// compiles them together with the unsafe built-ins refused.
func (s *Set) compile() (*ast.Compiler, error) {
	var ds diag.Diagnostics
	modules := map[string]*ast.Module{}
	hasPackage := false
	for _, m := range s.Modules {
		if len(m.Data) > MaxModuleBytes {
			ds.Add(diag.Pos{File: m.Name, Line: 1, Col: 1}, "policy file is %d bytes, more than the %d a policy may have", len(m.Data), MaxModuleBytes)
			continue
		}
		mod, err := ast.ParseModuleWithOpts(m.Name, string(m.Data), ast.ParserOptions{RegoVersion: ast.RegoV1, ProcessAnnotation: true})
		if err != nil {
			ds = append(ds, toDiags(err, m.Name)...)
			continue
		}
		if mod.Package.Path.Equal(ast.MustParseRef("data." + Package)) {
			hasPackage = true
		}
		modules[m.Name] = mod
	}
	if len(ds) > 0 {
		return nil, policyError(ds, false)
	}
	if !hasPackage {
		ds.Add(diag.Pos{File: s.Modules[0].Name, Line: 1, Col: 1},
			"no policy file declares `package %s`: Kyku reads the rules deny and warn of package %s, so these policies would never deny anything", Package, Package)
		return nil, policyError(ds, false)
	}
	// WithCapabilities, which OPA would have instead, refuses a built-in
	// left out of them as an undefined function; the unsafe list tells the
	// policy's author that it exists and is refused as unsafe.
	//lint:ignore SA1019 the refusal names the built-in as unsafe, not undefined
	c := ast.NewCompiler().
		WithUnsafeBuiltins(unsafe()).
		WithEnablePrintStatements(false)
	c.Compile(modules)
	if c.Failed() {
		return nil, policyError(toDiags(c.Errors, s.Modules[0].Name), false)
	}
	return c, nil
}

// query evaluates data.kyku.<rule>; an undefined rule is no message.
func (s *Set) query(ctx context.Context, c *ast.Compiler, rule string, doc any, tracer topdown.QueryTracer) ([]any, error) {
	opts := []func(*rego.Rego){
		rego.Compiler(c),
		rego.Query("data." + Package + "." + rule),
		rego.Input(doc),
		rego.UnsafeBuiltins(unsafe()),
		rego.StrictBuiltinErrors(true),
		rego.EnablePrintStatements(false),
	}
	if tracer != nil {
		opts = append(opts, rego.QueryTracer(tracer))
	}
	rs, err := rego.New(opts...).Eval(ctx)
	if err != nil {
		return nil, err
	}
	var out []any
	for _, r := range rs {
		for _, e := range r.Expressions {
			out = append(out, e.Value)
		}
	}
	return out, nil
}

// ruleAt is the position of the first definition of data.kyku.<rule>.
func (s *Set) ruleAt(c *ast.Compiler, rule string) diag.Pos {
	rules := c.GetRulesExact(ast.MustParseRef("data." + Package + "." + rule))
	for _, r := range rules {
		if r.Location != nil {
			return diag.Pos{File: r.Location.File, Line: r.Location.Row, Col: r.Location.Col}
		}
	}
	return diag.Pos{File: s.Modules[0].Name, Line: 1, Col: 1}
}

// messages turns the value of deny or warn into sorted messages: a set (or
// an array) of strings; any other element is shown as JSON. Anything else
// is an error at the rule.
func messages(vals []any, rule string, at diag.Pos) ([]string, error) {
	var out []string
	for _, v := range vals {
		items, ok := v.([]any)
		if !ok {
			var ds diag.Diagnostics
			ds.Add(at, "%s.%s must be a set of messages (`%s contains msg if { … }`), not %s", Package, rule, rule, kind(v))
			return nil, policyError(ds, false)
		}
		for _, it := range items {
			msg, ok := it.(string)
			if !ok {
				b, err := json.Marshal(it)
				if err != nil {
					msg = fmt.Sprint(it)
				} else {
					msg = string(b)
				}
			}
			out = append(out, cutMessage(msg))
		}
	}
	sort.Strings(out)
	return compact(out), nil
}

func compact(s []string) []string {
	var out []string
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

func cutMessage(s string) string {
	s = strings.ToValidUTF8(s, "�")
	if len(s) <= MaxMessageBytes {
		return s
	}
	s = s[:MaxMessageBytes]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s + "…"
}

func kind(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case map[string]any:
		return "an object"
	case nil:
		return "null"
	case json.Number, float64:
		return "a number"
	}
	return fmt.Sprintf("%T", v)
}

// evalError is a run-time error with the position it happened at.
func (s *Set) evalError(err error, rule string) error {
	ds := toDiags(err, s.Modules[0].Name)
	for i := range ds {
		ds[i].Message = "evaluating " + Package + "." + rule + ": " + ds[i].Message
	}
	return policyError(ds, false)
}

// timedOut evaluates rule again for a moment with a tracer, to say where
// the evaluation spends its time, and returns the timeout error there.
func (s *Set) timedOut(c *ast.Compiler, rule string, doc any, timeout time.Duration) error {
	t := &lastLocation{}
	ctx, cancel := context.WithTimeout(context.Background(), min(timeout, time.Second))
	defer cancel()
	_, _ = s.query(ctx, c, rule, doc, t)
	pos := t.pos()
	if pos.File == "" {
		pos = s.ruleAt(c, rule)
	}
	var ds diag.Diagnostics
	ds.Add(pos, "evaluating %s.%s took longer than %s (the bound on a policy evaluation); it was still evaluating here. Make the rule cheaper", Package, rule, timeout)
	return policyError(ds, true)
}

// lastLocation remembers the position of the last expression evaluated.
type lastLocation struct {
	mu  sync.Mutex
	loc *ast.Location
}

func (l *lastLocation) Enabled() bool               { return true }
func (l *lastLocation) Config() topdown.TraceConfig { return topdown.TraceConfig{} }
func (l *lastLocation) TraceEvent(ev topdown.Event) {
	if ev.Location == nil || ev.Location.File == "" {
		return
	}
	l.mu.Lock()
	l.loc = ev.Location
	l.mu.Unlock()
}

func (l *lastLocation) pos() diag.Pos {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.loc == nil {
		return diag.Pos{}
	}
	return diag.Pos{File: l.loc.File, Line: l.loc.Row, Col: l.loc.Col}
}

// toDiags converts OPA's errors (parse, compile, run time) into
// diagnostics at their positions; an error without one is placed at the
// start of file.
func toDiags(err error, file string) diag.Diagnostics {
	var ds diag.Diagnostics
	add := func(loc *ast.Location, msg string) {
		pos := diag.Pos{File: file, Line: 1, Col: 1}
		if loc != nil && loc.File != "" {
			pos = diag.Pos{File: loc.File, Line: loc.Row, Col: loc.Col}
		}
		ds.Add(pos, "%s", msg)
	}
	var astErrs ast.Errors
	var astErr *ast.Error
	var topErr *topdown.Error
	switch {
	case errors.As(err, &astErrs):
		for _, e := range astErrs {
			add(e.Location, e.Message)
		}
	case errors.As(err, &astErr):
		add(astErr.Location, astErr.Message)
	case errors.As(err, &topErr):
		add(topErr.Location, topErr.Message)
	default:
		add(nil, err.Error())
	}
	return ds
}

func policyError(ds diag.Diagnostics, timeout bool) error {
	ds.Sort()
	return &Error{Diags: ds, timeout: timeout}
}
