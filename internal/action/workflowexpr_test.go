package action_test

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
)

// A small evaluator of GitHub Actions expressions, as the example
// workflows use them in `if:` and `concurrency.group`: literals, context
// properties (github.event.pull_request.number, inputs.command), !, ==,
// !=, &&, || (which give an operand, not a boolean), parentheses, and the
// functions contains, startsWith, endsWith and format. Values are nil,
// bool, float64, string and map[string]any; comparisons follow GitHub's:
// strings case-insensitively, other mixed types as numbers.

// interpolate replaces every ${{ expression }} in s with its value.
func interpolate(s string, ctx map[string]any) (string, error) {
	var b strings.Builder
	for {
		start := strings.Index(s, "${{")
		if start < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		end := strings.Index(s[start:], "}}")
		if end < 0 {
			return "", fmt.Errorf("unclosed ${{ in %q", s)
		}
		v, err := evalExpr(s[start+3:start+end], ctx)
		if err != nil {
			return "", err
		}
		b.WriteString(s[:start])
		b.WriteString(exprString(v))
		s = s[start+end+2:]
	}
}

// evalCondition evaluates an `if:` (with or without ${{ }}) to a boolean.
func evalCondition(s string, ctx map[string]any) (bool, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "${{") && strings.HasSuffix(s, "}}") {
		s = s[3 : len(s)-2]
	}
	v, err := evalExpr(s, ctx)
	return truthy(v), err
}

func evalExpr(src string, ctx map[string]any) (any, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &exprParser{toks: toks, ctx: ctx}
	v, err := p.or()
	if err == nil && p.pos < len(p.toks) {
		err = fmt.Errorf("unexpected %q in %q", p.toks[p.pos].text, src)
	}
	return v, err
}

type token struct {
	kind byte // 's' string, 'n' number, 'i' identifier, 'o' operator or punctuation
	text string
}

func lex(s string) ([]token, error) {
	var out []token
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case unicode.IsSpace(rune(c)):
			i++
		case c == '\'':
			var b strings.Builder
			j := i + 1
			for ; j < len(s); j++ {
				if s[j] == '\'' {
					if j+1 < len(s) && s[j+1] == '\'' {
						b.WriteByte('\'')
						j++
						continue
					}
					break
				}
				b.WriteByte(s[j])
			}
			if j >= len(s) {
				return nil, fmt.Errorf("unclosed string in %q", s)
			}
			out = append(out, token{'s', b.String()})
			i = j + 1
		case c >= '0' && c <= '9':
			j := i
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.') {
				j++
			}
			out = append(out, token{'n', s[i:j]})
			i = j
		case c == '_' || unicode.IsLetter(rune(c)):
			j := i
			for j < len(s) && (s[j] == '_' || s[j] == '-' || unicode.IsLetter(rune(s[j])) || unicode.IsDigit(rune(s[j]))) {
				j++
			}
			out = append(out, token{'i', s[i:j]})
			i = j
		default:
			op := ""
			for _, o := range []string{"==", "!=", "&&", "||", "<=", ">=", "!", "<", ">", "(", ")", ",", "."} {
				if strings.HasPrefix(s[i:], o) {
					op = o
					break
				}
			}
			if op == "" {
				return nil, fmt.Errorf("unexpected %q in %q", c, s)
			}
			out = append(out, token{'o', op})
			i += len(op)
		}
	}
	return out, nil
}

type exprParser struct {
	toks []token
	pos  int
	ctx  map[string]any
}

func (p *exprParser) peek(op string) bool {
	return p.pos < len(p.toks) && p.toks[p.pos].kind == 'o' && p.toks[p.pos].text == op
}

func (p *exprParser) expect(op string) error {
	if !p.peek(op) {
		return fmt.Errorf("want %q at token %d", op, p.pos)
	}
	p.pos++
	return nil
}

func (p *exprParser) or() (any, error) {
	v, err := p.and()
	for err == nil && p.peek("||") {
		p.pos++
		var r any
		r, err = p.and()
		if !truthy(v) {
			v = r
		}
	}
	return v, err
}

func (p *exprParser) and() (any, error) {
	v, err := p.compare()
	for err == nil && p.peek("&&") {
		p.pos++
		var r any
		r, err = p.compare()
		if truthy(v) {
			v = r
		}
	}
	return v, err
}

func (p *exprParser) compare() (any, error) {
	v, err := p.unary()
	for err == nil && (p.peek("==") || p.peek("!=")) {
		op := p.toks[p.pos].text
		p.pos++
		var r any
		r, err = p.unary()
		v = equal(v, r) == (op == "==")
	}
	return v, err
}

func (p *exprParser) unary() (any, error) {
	if p.peek("!") {
		p.pos++
		v, err := p.unary()
		return !truthy(v), err
	}
	return p.primary()
}

func (p *exprParser) primary() (any, error) {
	if p.pos >= len(p.toks) {
		return nil, fmt.Errorf("expression ends early")
	}
	t := p.toks[p.pos]
	p.pos++
	switch t.kind {
	case 's':
		return t.text, nil
	case 'n':
		return strconv.ParseFloat(t.text, 64)
	case 'o':
		if t.text != "(" {
			return nil, fmt.Errorf("unexpected %q", t.text)
		}
		v, err := p.or()
		if err != nil {
			return nil, err
		}
		return v, p.expect(")")
	}
	switch t.text {
	case "true":
		return true, nil
	case "false":
		return false, nil
	case "null":
		return nil, nil
	}
	if p.peek("(") {
		return p.call(t.text)
	}
	v := p.ctx[t.text]
	for p.peek(".") {
		p.pos++
		if p.pos >= len(p.toks) || p.toks[p.pos].kind != 'i' {
			return nil, fmt.Errorf("want a property name after %q", t.text)
		}
		m, _ := v.(map[string]any)
		v = m[p.toks[p.pos].text]
		p.pos++
	}
	return v, nil
}

func (p *exprParser) call(name string) (any, error) {
	p.pos++ // (
	var args []any
	for !p.peek(")") {
		v, err := p.or()
		if err != nil {
			return nil, err
		}
		args = append(args, v)
		if !p.peek(",") {
			break
		}
		p.pos++
	}
	if err := p.expect(")"); err != nil {
		return nil, err
	}
	str := func(i int) string { return strings.ToLower(exprString(args[i])) }
	switch {
	case name == "contains" && len(args) == 2:
		return strings.Contains(str(0), str(1)), nil
	case name == "startsWith" && len(args) == 2:
		return strings.HasPrefix(str(0), str(1)), nil
	case name == "endsWith" && len(args) == 2:
		return strings.HasSuffix(str(0), str(1)), nil
	case name == "format" && len(args) >= 1:
		out := exprString(args[0])
		for i, a := range args[1:] {
			out = strings.ReplaceAll(out, "{"+strconv.Itoa(i)+"}", exprString(a))
		}
		return out, nil
	}
	return nil, fmt.Errorf("function %s with %d arguments is not supported here", name, len(args))
}

func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case float64:
		return x != 0 && !math.IsNaN(x)
	case string:
		return x != ""
	}
	return true
}

func number(v any) float64 {
	switch x := v.(type) {
	case nil:
		return 0
	case bool:
		if x {
			return 1
		}
		return 0
	case float64:
		return x
	case string:
		if strings.TrimSpace(x) == "" {
			return 0
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		if err != nil {
			return math.NaN()
		}
		return f
	}
	return math.NaN()
}

func equal(a, b any) bool {
	if as, ok := a.(string); ok {
		if bs, ok := b.(string); ok {
			return strings.EqualFold(as, bs)
		}
	}
	if _, ok := a.(map[string]any); ok {
		return false
	}
	if a == nil && b == nil {
		return true
	}
	return number(a) == number(b)
}

func exprString(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case bool:
		return strconv.FormatBool(x)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case string:
		return x
	}
	return "Object"
}
