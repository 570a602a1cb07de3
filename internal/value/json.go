package value

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// JSON for canonical values, without reflection. States, journals, plans
// and the simulator's objects are JSON of canonical values; encoding/json
// spends most of a plan's or apply's CPU on them through reflection. These
// functions read and write exactly what encoding/json does (the tests hold
// them to it): ParseJSON yields what json.Unmarshal into an any yields,
// AppendJSON the bytes json.Marshal writes, AppendJSONIndent those of
// json.MarshalIndent.

// maxDepth bounds nesting, as encoding/json does, so that hostile input
// cannot exhaust the stack.
const maxDepth = 10000

// ParseJSON decodes one JSON document into the canonical model: objects as
// map[string]any (a repeated key: the last wins), arrays as []any, numbers
// as float64 (or, for one a float64 cannot show as it is, its exact text as
// a json.Number: Number), strings (invalid UTF-8 and lone surrogates become U+FFFD),
// bools and nil. Anything but one value surrounded by white space is an
// error naming the offset.
func ParseJSON(data []byte) (any, error) {
	return ParseJSONWith(data, nil)
}

// ParseJSONWith is ParseJSON returning, for any string equal to a key of
// known, known's string instead of a new one: a caller decoding thousands
// of small documents of one vocabulary (property names) keeps one copy of
// each word. known is only read, so it may be shared between goroutines.
func ParseJSONWith(data []byte, known map[string]string) (any, error) {
	p := jsonParser{data: data, known: known}
	if len(data) >= internMin {
		p.strs = make(map[string]string, 256)
	}
	p.space()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i < len(p.data) {
		return nil, p.fail("after top-level value")
	}
	return v, nil
}

type jsonParser struct {
	data []byte
	i    int
	// strs holds the short strings of a large document (keys, types,
	// sizes repeat thousands of times in a state file): each is allocated
	// once, which leaves less for the collector to allocate and mark.
	strs  map[string]string
	known map[string]string // read-only vocabulary, see ParseJSONWith
}

// internMin is the document size from which short strings are shared;
// internMax bounds their length and maxInterned their number.
const (
	internMin   = 64 << 10
	internMax   = 24
	maxInterned = 4096
)

// SyntaxError is invalid JSON at Offset.
type SyntaxError struct {
	Offset int
	msg    string
}

func (e *SyntaxError) Error() string { return e.msg }

func (p *jsonParser) fail(where string) error {
	if p.i >= len(p.data) {
		return &SyntaxError{Offset: p.i, msg: "unexpected end of JSON input"}
	}
	return &SyntaxError{Offset: p.i, msg: fmt.Sprintf("invalid character %q %s (offset %d)", p.data[p.i], where, p.i)}
}

// open steps past an object's or array's opening bracket and the white
// space after it, and past closing too when nothing is inside (empty).
func (p *jsonParser) open(closing byte) (empty bool) {
	p.i++
	p.space()
	if p.i < len(p.data) && p.data[p.i] == closing {
		p.i++
		return true
	}
	return false
}

// key reads an object member's key, the colon after it and the white
// space around them.
func (p *jsonParser) key() (string, error) {
	if p.i >= len(p.data) || p.data[p.i] != '"' {
		return "", p.fail("looking for beginning of object key string")
	}
	k, err := p.str()
	if err != nil {
		return "", err
	}
	p.space()
	if p.i >= len(p.data) || p.data[p.i] != ':' {
		return "", p.fail("after object key")
	}
	p.i++
	p.space()
	return k, nil
}

// next reads what follows a member of an object or an element of an
// array: a comma and the white space after it (more follow), or closing
// (done). where names what came before, for the error.
func (p *jsonParser) next(closing byte, where string) (done bool, err error) {
	if p.i < len(p.data) {
		switch p.data[p.i] {
		case ',':
			p.i++
			p.space()
			return false, nil
		case closing:
			p.i++
			return true, nil
		}
	}
	return false, p.fail(where)
}

func (p *jsonParser) space() {
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jsonParser) value(depth int) (any, error) {
	if p.i >= len(p.data) {
		return nil, p.fail("")
	}
	switch c := p.data[p.i]; {
	case c == '{':
		return p.object(depth + 1)
	case c == '[':
		return p.array(depth + 1)
	case c == '"':
		return p.str()
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	case c == 't':
		return true, p.literal("true")
	case c == 'f':
		return false, p.literal("false")
	case c == 'n':
		return nil, p.literal("null")
	}
	return nil, p.fail("looking for beginning of value")
}

func (p *jsonParser) literal(word string) error {
	for k := 0; k < len(word); k++ {
		if p.i >= len(p.data) || p.data[p.i] != word[k] {
			return p.fail("in literal " + word)
		}
		p.i++
	}
	return nil
}

func (p *jsonParser) object(depth int) (any, error) {
	if depth > maxDepth {
		return nil, &SyntaxError{Offset: p.i, msg: "exceeded max depth"}
	}
	m := map[string]any{}
	if p.open('}') {
		return m, nil
	}
	for {
		k, err := p.key()
		if err != nil {
			return nil, err
		}
		v, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		m[k] = v
		p.space()
		if done, err := p.next('}', "after object key:value pair"); done || err != nil {
			return m, err
		}
	}
}

func (p *jsonParser) array(depth int) (any, error) {
	if depth > maxDepth {
		return nil, &SyntaxError{Offset: p.i, msg: "exceeded max depth"}
	}
	a := []any{}
	if p.open(']') {
		return a, nil
	}
	for {
		v, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		a = append(a, v)
		p.space()
		if done, err := p.next(']', "after array element"); done || err != nil {
			return a, err
		}
	}
}

// str reads a string at p.i (its opening quote).
func (p *jsonParser) str() (string, error) {
	p.i++ // "
	start := p.i
	// Fast path: plain ASCII up to the closing quote.
	for p.i < len(p.data) {
		c := p.data[p.i]
		if c == '"' {
			s := p.text(p.data[start:p.i])
			p.i++
			return s, nil
		}
		if c == '\\' || c < ' ' || c >= utf8.RuneSelf {
			break
		}
		p.i++
	}
	b := append([]byte(nil), p.data[start:p.i]...)
	for p.i < len(p.data) {
		c := p.data[p.i]
		switch {
		case c == '"':
			p.i++
			return string(b), nil
		case c < ' ':
			return "", p.fail("in string literal")
		case c == '\\':
			p.i++
			if p.i >= len(p.data) {
				return "", p.fail("")
			}
			switch e := p.data[p.i]; e {
			case '"', '\\', '/':
				b = append(b, e)
				p.i++
			case 'b':
				b = append(b, '\b')
				p.i++
			case 'f':
				b = append(b, '\f')
				p.i++
			case 'n':
				b = append(b, '\n')
				p.i++
			case 'r':
				b = append(b, '\r')
				p.i++
			case 't':
				b = append(b, '\t')
				p.i++
			case 'u':
				r, err := p.hex4()
				if err != nil {
					return "", err
				}
				if utf16.IsSurrogate(r) {
					// A valid pair is consumed whole; anything else
					// leaves the next escape alone and stands for U+FFFD.
					save := p.i
					if p.i+1 < len(p.data) && p.data[p.i] == '\\' && p.data[p.i+1] == 'u' {
						p.i++
						r2, err := p.hex4()
						if err == nil {
							if d := utf16.DecodeRune(r, r2); d != unicode.ReplacementChar {
								b = utf8.AppendRune(b, d)
								continue
							}
						}
					}
					p.i = save
					r = unicode.ReplacementChar
				}
				b = utf8.AppendRune(b, r)
			default:
				return "", p.fail("in string escape code")
			}
		case c < utf8.RuneSelf:
			b = append(b, c)
			p.i++
		default:
			r, size := utf8.DecodeRune(p.data[p.i:])
			b = utf8.AppendRune(b, r) // invalid UTF-8 becomes U+FFFD
			p.i += size
		}
	}
	return "", p.fail("")
}

// text returns b as a string, shared with earlier equal short strings of
// the document when it interns.
func (p *jsonParser) text(b []byte) string {
	if p.known != nil {
		if s, ok := p.known[string(b)]; ok {
			return s
		}
	}
	if p.strs == nil || len(b) > internMax {
		return string(b)
	}
	if s, ok := p.strs[string(b)]; ok { // no allocation for the lookup
		return s
	}
	s := string(b)
	if len(p.strs) < maxInterned {
		p.strs[s] = s
	}
	return s
}

// hex4 reads "uXXXX" at p.i (the u) and returns the code unit.
func (p *jsonParser) hex4() (rune, error) {
	p.i++ // u
	var r rune
	for k := 0; k < 4; k++ {
		if p.i >= len(p.data) {
			return 0, p.fail("")
		}
		c := p.data[p.i]
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, p.fail("in \\u hexadecimal character escape")
		}
		r = r*16 + rune(c)
		p.i++
	}
	return r, nil
}

func (p *jsonParser) number() (any, error) {
	start := p.i
	if p.data[p.i] == '-' {
		p.i++
	}
	switch {
	case p.i < len(p.data) && p.data[p.i] == '0':
		p.i++
	case p.i < len(p.data) && p.data[p.i] >= '1' && p.data[p.i] <= '9':
		for p.i < len(p.data) && p.data[p.i] >= '0' && p.data[p.i] <= '9' {
			p.i++
		}
	default:
		return nil, p.fail("in numeric literal")
	}
	if p.i < len(p.data) && p.data[p.i] == '.' {
		p.i++
		if !p.digits() {
			return nil, p.fail("after decimal point in numeric literal")
		}
	}
	if p.i < len(p.data) && (p.data[p.i] == 'e' || p.data[p.i] == 'E') {
		p.i++
		if p.i < len(p.data) && (p.data[p.i] == '+' || p.data[p.i] == '-') {
			p.i++
		}
		if !p.digits() {
			return nil, p.fail("in exponent of numeric literal")
		}
	}
	s := string(p.data[start:p.i])
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, fmt.Errorf("json: cannot unmarshal number %s into Go value of type float64", s)
	}
	if shortNumber(s) {
		return f, nil
	}
	// One a float64 may not show as it is (9007199254740993): the
	// canonical number keeps its exact text (normalNumber).
	return normalNumber(json.Number(s)), nil
}

// shortNumber reports whether a JSON number's text has no exponent and at
// most 15 significant digits: a float64 holds every such number as
// written.
func shortNumber(s string) bool {
	digits := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == 'e' || c == 'E':
			return false
		case c >= '1' && c <= '9', c == '0' && digits > 0:
			digits++
		}
	}
	return digits <= 15
}

func (p *jsonParser) digits() bool {
	start := p.i
	for p.i < len(p.data) && p.data[p.i] >= '0' && p.data[p.i] <= '9' {
		p.i++
	}
	return p.i > start
}

// AppendJSON appends the JSON of v as json.Marshal writes it: map keys
// sorted, <, > and & escaped. Values that are not canonical go through
// Normalize; NaN and infinities are an error, as they are for json.Marshal.
func AppendJSON(dst []byte, v any) ([]byte, error) {
	return appendJSON(dst, v, "", -1)
}

// AppendJSONIndent appends the JSON of v as json.MarshalIndent(v, "",
// indent) writes it, for a value nested depth levels deep (its lines after
// the first are indented depth+1 times).
func AppendJSONIndent(dst []byte, v any, indent string, depth int) ([]byte, error) {
	return appendJSON(dst, v, indent, depth)
}

// appendJSON writes compactly when depth < 0, else indented.
func appendJSON(dst []byte, v any, indent string, depth int) ([]byte, error) {
	var err error
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case bool:
		return strconv.AppendBool(dst, x), nil
	case string:
		return AppendString(dst, x), nil
	case float64:
		return appendFloat(dst, x)
	case json.Number: // a number a float64 cannot show (Number): its exact text
		if _, ok := BigFloat(x); !ok {
			return nil, fmt.Errorf("json: invalid number literal %q", string(x))
		}
		return append(dst, x...), nil
	case []any:
		if len(x) == 0 {
			return append(dst, "[]"...), nil
		}
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = newline(dst, indent, next(depth))
			if dst, err = appendJSON(dst, e, indent, next(depth)); err != nil {
				return nil, err
			}
		}
		dst = newline(dst, indent, depth)
		return append(dst, ']'), nil
	case map[string]any:
		if len(x) == 0 {
			return append(dst, "{}"...), nil
		}
		var small [16]string // most maps are small: sort their keys without allocating
		keys := small[:0]
		if len(x) > len(small) {
			keys = make([]string, 0, len(x))
		}
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		dst = append(dst, '{')
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = newline(dst, indent, next(depth))
			dst = AppendString(dst, k)
			dst = append(dst, ':')
			if depth >= 0 {
				dst = append(dst, ' ')
			}
			if dst, err = appendJSON(dst, x[k], indent, next(depth)); err != nil {
				return nil, err
			}
		}
		dst = newline(dst, indent, depth)
		return append(dst, '}'), nil
	}
	if e, ok := v.(Expr); ok {
		b, err := e.MarshalJSON()
		if err != nil {
			return nil, err
		}
		if depth < 0 {
			return append(dst, b...), nil
		}
		var out []byte
		return append(dst, indentTail(out, b, indent, depth)...), nil
	}
	n := Normalize(v)
	if _, isString := n.(string); isString {
		if _, wasString := v.(string); !wasString {
			// Normalize's last resort (fmt.Sprint) is not JSON's encoding.
			b, err := json.Marshal(v)
			if err != nil {
				return nil, err
			}
			if depth < 0 {
				return append(dst, b...), nil
			}
			var out []byte
			return append(dst, indentTail(out, b, indent, depth)...), nil
		}
	}
	return appendJSON(dst, n, indent, depth)
}

func next(depth int) int {
	if depth < 0 {
		return -1
	}
	return depth + 1
}

// newline starts a new line indented depth times (nothing when compact).
func newline(dst []byte, indent string, depth int) []byte {
	if depth < 0 {
		return dst
	}
	dst = append(dst, '\n')
	for i := 0; i < depth; i++ {
		dst = append(dst, indent...)
	}
	return dst
}

// indentTail indents compact JSON b as if it started depth levels deep.
func indentTail(out, b []byte, indent string, depth int) []byte {
	var buf bytes.Buffer
	_ = json.Indent(&buf, b, strings.Repeat(indent, depth), indent)
	return append(out, buf.Bytes()...)
}

// appendFloat writes f as encoding/json does (ES6 number to string).
func appendFloat(dst []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, fmt.Errorf("json: unsupported value: %s", strconv.FormatFloat(f, 'g', -1, 64))
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// e-09 → e-9
		n := len(dst)
		if n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst, nil
}

const hexDigits = "0123456789abcdef"

// plain marks the ASCII bytes json.Marshal writes as they are: not control
// characters, quotes, backslashes or <, >, &.
var plain = func() (t [utf8.RuneSelf]bool) {
	for b := ' '; b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\' && b != '<' && b != '>' && b != '&'
	}
	return t
}()

// AppendString appends s as a JSON string, escaped as json.Marshal does.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if plain[b] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
