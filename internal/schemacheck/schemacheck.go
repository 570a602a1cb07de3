package schemacheck

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Schema is a compiled JSON Schema.
type Schema struct {
	root     map[string]any
	patterns map[string]*regexp.Regexp
}

// Error is one way an instance fails its schema: Path is the JSON pointer
// of the value at fault ("" for the whole document, "/resources/web/type").
// A value that matches none of the alternatives of anyOf or oneOf has
// every alternative's errors as Reasons.
type Error struct {
	Path    string
	Msg     string
	Reasons []Error
}

// All is e and its reasons, and theirs, in order.
func (e Error) All() []Error {
	out := []Error{{Path: e.Path, Msg: e.Msg}}
	for _, r := range e.Reasons {
		out = append(out, r.All()...)
	}
	return out
}

func (e Error) String() string {
	p := e.Path
	if p == "" {
		p = "/"
	}
	return p + ": " + e.Msg
}

// keywords that assert something, each checked by Validate.
var assertions = []string{
	"$ref", "type", "enum", "const", "properties", "additionalProperties", "propertyNames",
	"required", "items", "minItems", "minimum", "maximum", "minLength", "maxLength", "pattern",
	"anyOf", "allOf", "oneOf", "not", "if", "then", "else",
}

// annotations are keywords that assert nothing.
var annotations = []string{"$schema", "$id", "$comment", "$defs", "title", "description", "markdownDescription", "default", "examples"}

// Compile parses a schema and checks that it uses only the keywords this
// package checks, that every $ref points inside it and that every pattern
// is a regular expression Go reads.
func Compile(data []byte) (*Schema, error) {
	var root map[string]any
	if err := json.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("parse schema: %w", err)
	}
	s := &Schema{root: root, patterns: map[string]*regexp.Regexp{}}
	if err := s.compile(root, "#"); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Schema) compile(node any, at string) error {
	switch n := node.(type) {
	case bool:
		return nil
	case map[string]any:
		for _, k := range sortedKeys(n) {
			v := n[k]
			here := at + "/" + k
			switch {
			case k == "$defs" || k == "properties":
				m, ok := v.(map[string]any)
				if !ok {
					return fmt.Errorf("%s: want an object", here)
				}
				for _, name := range sortedKeys(m) {
					if err := s.compile(m[name], here+"/"+name); err != nil {
						return err
					}
				}
			case k == "anyOf" || k == "allOf" || k == "oneOf":
				list, ok := v.([]any)
				if !ok || len(list) == 0 {
					return fmt.Errorf("%s: want a non-empty array", here)
				}
				for i, sub := range list {
					if err := s.compile(sub, here+"/"+strconv.Itoa(i)); err != nil {
						return err
					}
				}
			case k == "additionalProperties" || k == "propertyNames" || k == "items" || k == "not" || k == "if" || k == "then" || k == "else":
				if err := s.compile(v, here); err != nil {
					return err
				}
			case k == "$ref":
				ref, _ := v.(string)
				if _, err := s.resolve(ref); err != nil {
					return fmt.Errorf("%s: %w", here, err)
				}
			case k == "pattern":
				src, ok := v.(string)
				if !ok {
					return fmt.Errorf("%s: want a string", here)
				}
				re, err := regexp.Compile(src)
				if err != nil {
					return fmt.Errorf("%s: %w", here, err)
				}
				s.patterns[src] = re
			case k == "type":
				if err := checkTypeKeyword(v); err != nil {
					return fmt.Errorf("%s: %w", here, err)
				}
			case k == "enum" || k == "required":
				list, ok := v.([]any)
				if !ok {
					return fmt.Errorf("%s: want an array", here)
				}
				for _, e := range list {
					if _, isText := e.(string); k == "required" && !isText {
						return fmt.Errorf("%s: want an array of strings", here)
					}
				}
			case k == "minimum" || k == "maximum" || k == "minItems" || k == "minLength" || k == "maxLength":
				if _, ok := v.(float64); !ok {
					return fmt.Errorf("%s: want a number", here)
				}
			case slices.Contains(assertions, k) || slices.Contains(annotations, k):
			default:
				return fmt.Errorf("%s: keyword %q is not checked by schemacheck", at, k)
			}
		}
		return nil
	}
	return fmt.Errorf("%s: a schema is an object or a boolean, got %T", at, node)
}

var typeNames = []string{"null", "boolean", "object", "array", "number", "integer", "string"}

func checkTypeKeyword(v any) error {
	var names []any
	switch t := v.(type) {
	case string:
		names = []any{t}
	case []any:
		names = t
	default:
		return fmt.Errorf("type: want a string or an array of strings")
	}
	for _, n := range names {
		if s, ok := n.(string); !ok || !slices.Contains(typeNames, s) {
			return fmt.Errorf("type: unknown type %v", n)
		}
	}
	return nil
}

// resolve finds the subschema a "#/…" reference names.
func (s *Schema) resolve(ref string) (any, error) {
	rest, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, fmt.Errorf("$ref %q: only references inside the schema (#/…) are supported", ref)
	}
	var node any = s.root
	for _, part := range strings.Split(strings.TrimPrefix(rest, "/"), "/") {
		if part == "" {
			continue
		}
		part = strings.NewReplacer("~1", "/", "~0", "~").Replace(part)
		m, ok := node.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("$ref %q: %q is not inside an object", ref, part)
		}
		if node, ok = m[part]; !ok {
			return nil, fmt.Errorf("$ref %q: no %q", ref, part)
		}
	}
	return node, nil
}

// Validate returns every way v fails the schema, sorted by path; none when
// it conforms.
func (s *Schema) Validate(v any) []Error {
	errs := s.check(s.root, v, "")
	sort.SliceStable(errs, func(i, j int) bool { return errs[i].Path < errs[j].Path })
	return errs
}

func (s *Schema) check(node, v any, path string) []Error {
	switch n := node.(type) {
	case bool:
		if n {
			return nil
		}
		return []Error{{Path: path, Msg: "no value is allowed here"}}
	case map[string]any:
		var errs []Error
		for _, k := range sortedKeys(n) {
			errs = append(errs, s.keyword(n, k, v, path)...)
		}
		return errs
	}
	return []Error{{Path: path, Msg: fmt.Sprintf("bad schema %T", node)}}
}

// keyword checks v against keyword k of schema n.
func (s *Schema) keyword(n map[string]any, k string, v any, path string) []Error {
	arg := n[k]
	fail := func(format string, a ...any) []Error { return errorAt(path, format, a...) }
	switch k {
	case "$ref":
		target, _ := s.resolve(arg.(string))
		return s.check(target, v, path)
	case "type":
		return s.checkType(arg, v, path)
	case "enum":
		for _, e := range arg.([]any) {
			if equal(e, v) {
				return nil
			}
		}
		return errorAt(path, "%s is not one of %s", show(v), show(arg))
	case "const":
		if !equal(arg, v) {
			return errorAt(path, "%s is not %s", show(v), show(arg))
		}
	case "properties", "additionalProperties", "propertyNames", "required":
		if m, ok := v.(map[string]any); ok {
			return s.object(n, k, m, path)
		}
	case "items", "minItems":
		if list, ok := v.([]any); ok {
			if k == "minItems" {
				if float64(len(list)) < arg.(float64) {
					return fail("%d items, fewer than %v", len(list), arg)
				}
				return nil
			}
			var errs []Error
			for i, e := range list {
				errs = append(errs, s.check(arg, e, path+"/"+strconv.Itoa(i))...)
			}
			return errs
		}
	case "minimum", "maximum":
		if f, ok := v.(float64); ok {
			if k == "minimum" && f < arg.(float64) {
				return fail("%v is less than the minimum %v", f, arg)
			}
			if k == "maximum" && f > arg.(float64) {
				return fail("%v is more than the maximum %v", f, arg)
			}
		}
	case "minLength", "maxLength", "pattern":
		if str, ok := v.(string); ok {
			return s.text(k, arg, str, path)
		}
	case "anyOf", "oneOf":
		matched := 0
		var why []Error
		for _, sub := range arg.([]any) {
			errs := s.check(sub, v, path)
			if len(errs) == 0 {
				matched++
			}
			why = append(why, errs...)
		}
		switch {
		case matched == 0:
			// Every alternative's reasons: which one was meant is the
			// reader's guess.
			return []Error{{Path: path, Msg: fmt.Sprintf("%s matches none of %d alternatives (%s)", show(v), len(arg.([]any)), k), Reasons: why}}
		case k == "oneOf" && matched > 1:
			return fail("%s matches %d alternatives of oneOf, not exactly one", show(v), matched)
		}
	case "allOf":
		var errs []Error
		for _, sub := range arg.([]any) {
			errs = append(errs, s.check(sub, v, path)...)
		}
		return errs
	case "not":
		if len(s.check(arg, v, path)) == 0 {
			return fail("%s must not match %s", show(v), show(arg))
		}
	case "if":
		branch := "else"
		if len(s.check(arg, v, path)) == 0 {
			branch = "then"
		}
		if sub, ok := n[branch]; ok {
			return s.check(sub, v, path)
		}
	}
	return nil // then, else, annotations
}

func (s *Schema) checkType(arg, v any, path string) []Error {
	want := []any{arg}
	if list, ok := arg.([]any); ok {
		want = list
	}
	got := typeOf(v)
	for _, w := range want {
		if w == got || w == "number" && got == "integer" {
			return nil
		}
	}
	names := make([]string, len(want))
	for i, w := range want {
		names[i] = w.(string)
	}
	return errorAt(path, "expected %s, got %s %s", strings.Join(names, " or "), got, show(v))
}

// errorAt is one error at path.
func errorAt(path, format string, a ...any) []Error {
	return []Error{{Path: path, Msg: fmt.Sprintf(format, a...)}}
}

// typeOf is the JSON type of v; a number with no fraction is an integer.
func typeOf(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		if x == math.Trunc(x) && !math.IsInf(x, 0) {
			return "integer"
		}
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func (s *Schema) object(n map[string]any, k string, m map[string]any, path string) []Error {
	var errs []Error
	props, _ := n["properties"].(map[string]any)
	switch k {
	case "properties":
		for _, name := range sortedKeys(m) {
			if sub, ok := props[name]; ok {
				errs = append(errs, s.check(sub, m[name], path+"/"+escape(name))...)
			}
		}
	case "additionalProperties":
		for _, name := range sortedKeys(m) {
			if _, ok := props[name]; ok {
				continue
			}
			if b, ok := n[k].(bool); ok && !b {
				known := sortedKeys(props)
				errs = append(errs, Error{Path: path + "/" + escape(name), Msg: fmt.Sprintf("unknown key %q (expected one of: %s)", name, strings.Join(known, ", "))})
				continue
			}
			errs = append(errs, s.check(n[k], m[name], path+"/"+escape(name))...)
		}
	case "propertyNames":
		for _, name := range sortedKeys(m) {
			for _, e := range s.check(n[k], name, path+"/"+escape(name)) {
				errs = append(errs, Error{Path: e.Path, Msg: "key " + strconv.Quote(name) + ": " + e.Msg})
			}
		}
	case "required":
		for _, r := range n[k].([]any) {
			if _, ok := m[r.(string)]; !ok {
				errs = append(errs, Error{Path: path, Msg: fmt.Sprintf("missing required key %q", r)})
			}
		}
	}
	return errs
}

func (s *Schema) text(k string, arg any, str, path string) []Error {
	switch k {
	case "pattern":
		if !s.patterns[arg.(string)].MatchString(str) {
			return []Error{{Path: path, Msg: fmt.Sprintf("%q does not match %q", str, arg)}}
		}
	case "minLength":
		if float64(utf8.RuneCountInString(str)) < arg.(float64) {
			return []Error{{Path: path, Msg: fmt.Sprintf("%q is shorter than %v characters", str, arg)}}
		}
	case "maxLength":
		if float64(utf8.RuneCountInString(str)) > arg.(float64) {
			return []Error{{Path: path, Msg: fmt.Sprintf("%q is longer than %v characters", str, arg)}}
		}
	}
	return nil
}

// equal is JSON equality (numbers by value, objects by their members).
func equal(a, b any) bool { return reflect.DeepEqual(a, b) }

func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 60 {
		return string(b[:57]) + "…"
	}
	return string(b)
}

func escape(name string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(name)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
