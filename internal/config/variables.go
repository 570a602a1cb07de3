package config

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/envname"
	"github.com/kyku/action/internal/noun"
	"github.com/kyku/action/internal/value"
	"go.yaml.in/yaml/v3"
)

// VarType is the type of a variable.
type VarType int

const (
	VarString VarType = iota
	VarNumber
	VarBool
	VarList
	VarMap
)

var varTypeNames = [...]string{"string", "number", "bool", "list", "map"}

func (t VarType) String() string {
	if int(t) < len(varTypeNames) {
		return varTypeNames[t]
	}
	return "unknown"
}

// Variable is one declared variable and the value an expansion gave it.
type Variable struct {
	Name        string
	Type        VarType
	Description string
	Sensitive   bool
	Default     any // canonical; valid when HasDefault
	HasDefault  bool
	Allowed     []any
	Min, Max    *float64
	Pattern     string
	Pos         diag.Pos // of the declaration's key

	pattern    *regexp.Regexp
	defaultPos diag.Pos
	bad        bool // its declaration was reported: no value is looked for
	resolved   bool // Value is set

	// Value is the value this expansion used, and Source where it came
	// from: "--var", "KYKU_VAR_<name>", "environments.<env>.variables" or
	// "default".
	Value  any
	Source string

	// why says what made the variable sensitive when these files did not
	// declare it so ("": they did).
	why string
}

// Inputs are what a configuration is expanded with besides its files: the
// environment and the values given outside the files.
type Inputs struct {
	// Environment selects environments.<env>.variables ("" : the default
	// environment, which takes defaults only). When the configuration
	// declares environments, it must be one of them (or "").
	Environment string
	// Vars are --var name=value, strongest of all; values are text, read
	// by the variable's type (lists and maps in YAML flow or JSON form).
	Vars map[string]string
	// Getenv reads KYKU_VAR_<name> (nil: none).
	Getenv func(string) string
	// Trusted, when set, is what the configuration the front door trusts
	// (the default branch's) declares about variables, and its word wins
	// over these files': a variable it declares sensitive is sensitive
	// whatever they declare, and a value given outside the files (Vars,
	// KYKU_VAR_<name>, where secrets come from) is sensitive unless it
	// declares that variable and not as sensitive. A pull request's files
	// may make a variable sensitive, never the reverse. nil: the files
	// decide (the CLI; the trusted configuration itself).
	Trusted *Trust
}

// varNameRE: a variable name must fit ${var.name} (no '-').
var varNameRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
})

var varKeys = []string{"allowed", "default", "description", "max", "min", "pattern", "sensitive", "type"}

// envDecl is one environments.<env> entry.
type envDecl struct {
	name string
	pos  diag.Pos
	file string
	vars []pair // variables: name → value node
}

var envKeys = []string{"variables"}

// variableMap reads a variables: section (declarations).
func (p *parser) variableMap(n *yaml.Node) {
	if isNull(n) {
		return
	}
	pairs, _ := p.mapping(n, "variables", "mapping of variable names to declarations")
	for _, kv := range pairs {
		name, pos := kv.key.Value, p.pos(kv.key)
		if !varNameRE().MatchString(name) {
			p.diags.Add(pos, "variable name %q is invalid: use letters, digits and _ (not a digit first), so that ${var.%s} can name it", name, name)
			continue
		}
		if first, dup := p.vars[name]; dup {
			p.diags.Add(pos, "duplicate variable %q (first defined at %s)", name, first.Pos)
			continue
		}
		v := &Variable{Name: name, Pos: pos}
		p.vars[name] = v
		before := len(p.diags)
		p.variable(v, kv.val)
		v.bad = len(p.diags) > before
	}
}

func (p *parser) variable(v *Variable, n *yaml.Node) {
	path := "variables." + v.Name
	pairs, ok := p.mapping(n, path, `mapping with "type" (e.g. { type: string, default: small })`)
	if !ok {
		return
	}
	byKey := map[string]*yaml.Node{}
	for _, kv := range pairs {
		if !slices.Contains(varKeys, kv.key.Value) {
			p.unknownKey(kv.key, "variable "+strconv.Quote(v.Name), varKeys)
			continue
		}
		byKey[kv.key.Value] = kv.val
	}
	tn, ok := byKey["type"]
	if !ok {
		p.diags.Add(v.Pos, "variable %q: missing \"type\" (one of: %s)", v.Name, strings.Join(varTypeNames[:], ", "))
		return
	}
	t, ok := p.str(tn, path+".type")
	if !ok {
		return
	}
	i := slices.Index(varTypeNames[:], t)
	if i < 0 {
		p.diags.Add(p.pos(tn), "variable %q: unknown type %q%s", v.Name, t, didYouMean(t, varTypeNames[:]))
		return
	}
	v.Type = VarType(i)
	if n, ok := byKey["description"]; ok {
		v.Description, _ = p.str(n, path+".description")
	}
	if n, ok := byKey["sensitive"]; ok {
		v.Sensitive, _ = p.boolean(n, path+".sensitive")
	}
	valid := true
	for _, k := range []string{"min", "max"} {
		n, ok := byKey[k]
		if !ok {
			continue
		}
		if v.Type == VarBool {
			p.diags.Add(p.pos(n), "variable %q: %s does not apply to a bool", v.Name, k)
			valid = false
			continue
		}
		f, ok := p.number(n, path+"."+k)
		if !ok {
			valid = false
			continue
		}
		if k == "min" {
			v.Min = &f
		} else {
			v.Max = &f
		}
	}
	if v.Min != nil && v.Max != nil && *v.Min > *v.Max {
		p.diags.Add(p.pos(byKey["max"]), "variable %q: max %s is below min %s", v.Name, value.Text(*v.Max), value.Text(*v.Min))
		valid = false
	}
	if n, ok := byKey["pattern"]; ok {
		if s, ok := p.str(n, path+".pattern"); ok {
			_, err := regexp.Compile(s)
			switch re, _ := regexp.Compile(`^(?:` + s + `)$`); {
			case v.Type != VarString:
				p.diags.Add(p.pos(n), "variable %q: pattern applies to a string, not a %s", v.Name, v.Type)
				valid = false
			case err != nil || re == nil:
				p.diags.Add(p.pos(n), "variable %q: pattern %q is not a regular expression: %v", v.Name, s, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
				valid = false
			default:
				v.Pattern, v.pattern = s, re
			}
		}
	}
	if n, ok := byKey["allowed"]; ok {
		elems, ok := p.sequence(n, path+".allowed", "list of the values allowed")
		if !ok {
			valid = false
		}
		if ok && (v.Type == VarList || v.Type == VarMap) {
			p.diags.Add(p.pos(n), "variable %q: allowed applies to a string, number or bool, not a %s", v.Name, v.Type)
			valid = false
			elems = nil
		}
		for _, e := range elems {
			x, ok := p.generic(e, path+".allowed", nil)
			if !ok {
				valid = false
				continue
			}
			if msg := typeMismatch(v.Type, x); msg != "" {
				p.diags.Add(p.pos(e), "variable %q: allowed value %s", v.Name, msg)
				valid = false
				continue
			}
			v.Allowed = append(v.Allowed, x)
		}
	}
	if n, ok := byKey["default"]; ok {
		v.defaultPos = p.pos(n)
		if isNull(n) {
			p.diags.Add(p.pos(n), "variable %q: default is empty; leave it out to make the variable required", v.Name)
			return
		}
		x, ok := p.generic(n, path+".default", nil)
		if !ok {
			return
		}
		if valid {
			if msg := v.check(x); msg != "" {
				p.diags.Add(p.pos(n), "variable %q: default %s", v.Name, msg)
				return
			}
		}
		v.Default, v.HasDefault = x, true
	}
}

// number returns a finite number scalar.
func (p *parser) number(n *yaml.Node, path string) (float64, bool) {
	if n = p.deref(n, path); n == nil {
		return 0, false
	}
	if n.Kind == yaml.ScalarNode && (n.ShortTag() == "!!int" || n.ShortTag() == "!!float") {
		if f, ok := p.float(n); ok {
			return f, true
		}
	}
	p.typeErr(n, path, "number")
	return 0, false
}

// typeMismatch says why x is not a value of type t ("" when it is).
func typeMismatch(t VarType, x any) string {
	ok := false
	switch t {
	case VarString:
		_, ok = x.(string)
	case VarNumber:
		_, ok = x.(float64)
	case VarBool:
		_, ok = x.(bool)
	case VarList:
		_, ok = x.([]any)
	case VarMap:
		_, ok = x.(map[string]any)
	}
	if ok {
		return ""
	}
	return "is a " + value.KindOf(x) + ", not a " + t.String()
}

// check says why x is not a valid value of v ("" when it is). A sensitive
// variable's value is never quoted.
func (v *Variable) check(x any) string {
	if msg := typeMismatch(v.Type, x); msg != "" {
		return msg
	}
	shown := v.shown(x)
	if len(v.Allowed) > 0 {
		found := false
		for _, a := range v.Allowed {
			if value.Equal(a, x) {
				found = true
				break
			}
		}
		if !found {
			var names []string
			for _, a := range v.Allowed {
				names = append(names, value.Text(a))
			}
			hint := ""
			if s, ok := x.(string); ok && !v.Sensitive {
				hint = didYouMean(s, names)
			}
			return shown + " is not one of " + strings.Join(names, ", ") + hint
		}
	}
	size, what := 0.0, ""
	switch y := x.(type) {
	case float64:
		size = y
	case string:
		size, what = float64(utf8.RuneCountInString(y)), "character"
	case []any:
		size, what = float64(len(y)), "element"
	case map[string]any:
		size, what = float64(len(y)), "entry"
	}
	if _, isBool := x.(bool); !isBool {
		if v.Min != nil && size < *v.Min {
			if what == "" {
				return shown + " is below the minimum " + value.Text(*v.Min)
			}
			return shown + " has fewer than " + bound(*v.Min, what)
		}
		if v.Max != nil && size > *v.Max {
			if what == "" {
				return shown + " is above the maximum " + value.Text(*v.Max)
			}
			return shown + " has more than " + bound(*v.Max, what)
		}
	}
	if v.pattern != nil {
		if s, _ := x.(string); !v.pattern.MatchString(s) {
			return shown + " does not match the pattern " + strconv.Quote(v.Pattern)
		}
	}
	return ""
}

// shown is how a value of v may appear in a message.
func (v *Variable) shown(x any) string {
	if v.Sensitive {
		return "the value (sensitive)"
	}
	if s, ok := x.(string); ok {
		return strconv.Quote(s)
	}
	return value.Text(x)
}

// environmentMap reads an environments: section.
func (p *parser) environmentMap(n *yaml.Node) {
	if isNull(n) {
		return
	}
	pairs, _ := p.mapping(n, "environments", "mapping of environment names to their settings")
	for _, kv := range pairs {
		name, pos := kv.key.Value, p.pos(kv.key)
		if err := envname.Check(name); err != nil || name == "" {
			p.diags.Add(pos, "environments: environment name %q is invalid (use %s): it names state files and keys", name, envname.Rule)
			continue
		}
		if first, dup := p.envs[name]; dup {
			p.diags.Add(pos, "duplicate environment %q (first defined at %s)", name, first.pos)
			continue
		}
		e := &envDecl{name: name, pos: pos, file: p.file}
		p.envs[name] = e
		if isNull(kv.val) {
			continue // "staging:" with nothing: an environment of defaults
		}
		path := "environments." + name
		settings, _ := p.mapping(kv.val, path, `mapping with "variables"`)
		for _, s := range settings {
			if s.key.Value != "variables" {
				p.unknownKey(s.key, path, envKeys)
				continue
			}
			if isNull(s.val) {
				continue
			}
			e.vars, _ = p.mapping(s.val, path+".variables", "mapping of variable names to values")
		}
	}
}

// resolveVariables gives every declared variable its value, strongest
// first: --var, KYKU_VAR_<name>, environments.<env>.variables, default.
// Problems are reported where the value was written (or, for values given
// outside the files, at the declaration).
func (p *parser) resolveVariables() {
	in := p.inputs
	env := in.Environment
	if len(p.envs) > 0 && env != "" && p.envs[env] == nil {
		p.diags.Add(p.firstEnvPos(), "environment %q is not declared under environments (declared: %s)%s",
			env, strings.Join(p.envNames(), ", "), didYouMean(env, p.envNames()))
	}
	// Values in every environment must name declared variables.
	envValues := map[string]pair{}
	for _, name := range p.envNames() {
		e := p.envs[name]
		p.file = e.file
		for _, kv := range e.vars {
			if p.vars[kv.key.Value] == nil {
				p.diags.Add(p.pos(kv.key), "environments.%s.variables: no variable %q is declared%s", name, kv.key.Value, p.varHint(kv.key.Value))
				continue
			}
			if name == env {
				envValues[kv.key.Value] = kv
			}
		}
	}
	var cli []string
	for name := range in.Vars {
		cli = append(cli, name)
	}
	sort.Strings(cli)
	for _, name := range cli {
		if p.vars[name] == nil {
			p.diags.Add(diag.Pos{File: "command line"}, "--var %s: no variable %q is declared%s", name, name, p.varHint(name))
		}
	}
	for _, name := range p.varNames() {
		v := p.vars[name]
		if v.bad {
			continue
		}
		p.file = v.Pos.File
		envVar := "KYKU_VAR_" + name
		text, fromEnv := "", ""
		if s, ok := in.Vars[name]; ok {
			text, fromEnv = s, "--var "+name
		} else if in.Getenv != nil {
			if s := in.Getenv(envVar); s != "" {
				text, fromEnv = s, envVar
			}
		}
		// Before any check: a message about the value must not quote it
		// when the trusted configuration says it is sensitive.
		in.Trusted.trust(v, fromEnv)
		switch kv, inEnv := envValues[name]; {
		case fromEnv != "":
			x, err := parseVarText(v.Type, text)
			if err != nil {
				p.diags.Add(v.Pos, "variable %q: %s: %v", name, fromEnv, err)
				continue
			}
			if msg := v.check(x); msg != "" {
				p.diags.Add(v.Pos, "variable %q: %s: %s", name, fromEnv, msg)
				continue
			}
			v.Value, v.Source = x, strings.Fields(fromEnv)[0]
		case inEnv:
			p.file = p.envs[env].file
			x, ok := p.generic(kv.val, "environments."+env+".variables."+name, nil)
			if !ok {
				continue
			}
			if msg := v.check(x); msg != "" {
				p.diags.Add(p.pos(kv.val), "variable %q in environment %q: %s", name, env, msg)
				continue
			}
			v.Value, v.Source = x, "environments."+env+".variables"
		case v.HasDefault:
			v.Value, v.Source = value.Copy(v.Default), "default"
		default:
			where := "the default environment"
			if env != "" {
				where = fmt.Sprintf("environment %q", env)
			}
			p.diags.Add(v.Pos, "variable %q has no value in %s: give it with --var %s=…, %s, environments.<env>.variables or a default", name, where, name, envVar)
			continue
		}
		v.resolved = true
		if v.Sensitive {
			p.cfg.Secrets = append(p.cfg.Secrets, leafTexts(v.Value)...)
		}
	}
	p.file = ""
}

// parseVarText reads a value given as text (--var, KYKU_VAR_) as type t.
func parseVarText(t VarType, s string) (any, error) {
	switch t {
	case VarString:
		return s, nil
	case VarNumber:
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, fmt.Errorf("expected a number")
		}
		return f, nil
	case VarBool:
		switch strings.TrimSpace(s) {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
		return nil, fmt.Errorf("expected true or false")
	}
	var raw any
	if err := yaml.Unmarshal([]byte(s), &raw); err != nil {
		return nil, fmt.Errorf("expected a %s in YAML or JSON form (e.g. %s)", t, map[VarType]string{VarList: "[a, b]", VarMap: "{ team: web }"}[t])
	}
	x, err := canonicalYAML(raw)
	if err != nil {
		return nil, err
	}
	if msg := typeMismatch(t, x); msg != "" {
		return nil, fmt.Errorf("the value %s", msg)
	}
	return x, nil
}

// canonicalYAML converts what yaml.Unmarshal yields into a canonical value.
func canonicalYAML(v any) (any, error) {
	switch x := v.(type) {
	case nil, string, bool:
		return x, nil
	case int:
		return float64(x), nil
	case int64:
		return float64(x), nil
	case uint64:
		return float64(x), nil
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return nil, fmt.Errorf("number %v is not finite", x)
		}
		return x, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			c, err := canonicalYAML(e)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			c, err := canonicalYAML(e)
			if err != nil {
				return nil, err
			}
			out[k] = c
		}
		return out, nil
	}
	return nil, fmt.Errorf("unsupported value %v (map keys must be strings)", v)
}

func (p *parser) varNames() []string {
	names := make([]string, 0, len(p.vars))
	for n := range p.vars {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func (p *parser) envNames() []string {
	names := make([]string, 0, len(p.envs))
	for n := range p.envs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func (p *parser) firstEnvPos() diag.Pos {
	var first diag.Pos
	for _, e := range p.envs {
		if first.File == "" || e.pos.File < first.File || (e.pos.File == first.File && e.pos.Line < first.Line) {
			first = e.pos
		}
	}
	return first
}

func (p *parser) varHint(name string) string {
	if h := didYouMean(name, p.varNames()); h != "" {
		return h
	}
	if len(p.vars) == 0 {
		return " (declare it under variables:)"
	}
	return " (declared: " + strings.Join(p.varNames(), ", ") + ")"
}

// VariablesHash is the sha256 (lowercase hex) of the variables' names and
// the values this expansion used, sorted by name ("" when none is
// declared). A saved plan records it: its apply with a configuration
// expanded with other values is refused, as its config hash would be.
func (c *Config) VariablesHash() string {
	if len(c.Variables) == 0 {
		return ""
	}
	vs := slices.Clone(c.Variables)
	slices.SortFunc(vs, func(a, b *Variable) int { return strings.Compare(a.Name, b.Name) })
	b := []byte("[")
	for i, v := range vs {
		if i > 0 {
			b = append(b, ',')
		}
		b = value.AppendString(b, v.Name)
		b = append(b, ':')
		var err error
		if b, err = value.AppendJSON(b, v.Value); err != nil {
			// Canonical values always marshal; a failure is a programming error.
			panic("variables hash: " + err.Error())
		}
	}
	b = append(b, ']')
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// bound is a limit on a size, counted in what ("character", "element",
// "entry"): "1 element", "3 entries".
func bound(n float64, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return value.Text(n) + " " + noun.Plural(what)
}
