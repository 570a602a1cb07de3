package tfstate

import (
	"bytes"
	"strconv"
	"unicode/utf8"

	"github.com/kyku/action/internal/value"
)

// wireReader reads a JSON document into the wire structs (decode.go,
// extra.go) without reflection: encoding/json spends most of the time of
// reading a large state on reflection and on a validating pass of its
// own. It reads only what it is sure encoding/json reads the same way;
// at anything else (invalid JSON, a key spelt in another case, a key
// repeated in an object of fields, a value of another kind than its
// field's) it gives up, and the caller decodes the document with
// encoding/json, whose result or error stands. So it never changes what
// a document decodes to, only how fast.
type wireReader struct {
	data []byte
	i    int
	bad  bool   // gave up: what was read is not to be used
	buf  []byte // unescape's
	// strs holds the short strings read of the fields that repeat them
	// (types, providers, modes), each allocated once.
	strs map[string]string
	// each takes the resources of a state as they are read (readWire).
	each func(*wireResource) bool
	// names are the argument names of the configurations read so far,
	// each allocated once (value.ParseJSONWith).
	names map[string]string
}

// maxWireDepth bounds the nesting of a value skip reads, below
// encoding/json's limit (10,000) by more than the wire structs' own depth:
// a document near the limit is left to encoding/json.
const maxWireDepth = 10000 - 64

// giveUp marks r as having given up, and is false.
func (r *wireReader) giveUp() bool {
	r.bad = true
	return false
}

func (r *wireReader) space() {
	for r.i < len(r.data) {
		switch r.data[r.i] {
		case ' ', '\t', '\n', '\r':
			r.i++
		default:
			return
		}
	}
}

func (r *wireReader) peek() byte {
	if r.i < len(r.data) {
		return r.data[r.i]
	}
	return 0
}

// end reports whether only white space is left after the document.
func (r *wireReader) end() bool {
	r.space()
	return !r.bad && r.i == len(r.data)
}

// open steps past the opening bracket c, or gives up when the value is
// something else.
func (r *wireReader) open(c byte) bool {
	r.space()
	if r.bad || r.peek() != c {
		return r.giveUp()
	}
	r.i++
	return true
}

// key reads the next member's key of the object being read and the
// colon after it; false at the object's end (its closing brace read) or
// when r gave up. n counts the members read so far. The key is only
// valid until the next read (string(key) keeps it).
func (r *wireReader) key(n *int) ([]byte, bool) {
	if r.bad {
		return nil, false
	}
	r.space()
	switch c := r.peek(); {
	case c == '}' && *n == 0:
		r.i++
		return nil, false
	case *n == 0:
	case c == ',':
		r.i++
		r.space()
	case c == '}':
		r.i++
		return nil, false
	default:
		return nil, r.giveUp()
	}
	*n++
	if r.peek() != '"' {
		return nil, r.giveUp()
	}
	k := r.strBytes()
	r.space()
	if r.peek() != ':' {
		return nil, r.giveUp()
	}
	r.i++
	r.space()
	return k, !r.bad
}

// elem steps to the next element of the array being read; false at its
// end (its closing bracket read) or when r gave up. n counts the
// elements read so far.
func (r *wireReader) elem(n *int) bool {
	if r.bad {
		return false
	}
	r.space()
	switch c := r.peek(); {
	case c == ']' && *n == 0:
		r.i++
		return false
	case *n == 0:
	case c == ',':
		r.i++
		r.space()
	case c == ']':
		r.i++
		return false
	default:
		return r.giveUp()
	}
	*n++
	return true
}

// null reads a null when one is next.
func (r *wireReader) null() bool {
	r.space()
	if bytes.HasPrefix(r.data[r.i:], []byte("null")) {
		r.i += 4
		return true
	}
	return false
}

// str reads a string (at its opening quote), allocated once per
// document when intern is set and it is short.
func (r *wireReader) str(intern bool) string {
	b := r.strBytes()
	if intern {
		return r.intern(b)
	}
	return string(b)
}

// strBytes reads a string (at its opening quote): its bytes decoded,
// valid until the next read.
func (r *wireReader) strBytes() []byte {
	start := r.i
	r.i++
	plain, simple := true, true // simple: ASCII, no \u escapes
	for r.i < len(r.data) {
		c := r.data[r.i]
		switch {
		case c == '"':
			r.i++
			switch {
			case plain:
				return r.data[start+1 : r.i-1]
			case simple:
				return r.unescape(r.data[start+1 : r.i-1])
			}
			// \u escapes or non-ASCII bytes: value's parser decodes them
			// as encoding/json does.
			v, err := value.ParseJSON(r.data[start:r.i])
			s, ok := v.(string)
			if err != nil || !ok {
				r.giveUp()
				return nil
			}
			return []byte(s)
		case c < ' ':
			r.giveUp()
			return nil
		case c == '\\':
			plain = false
			if r.i+1 < len(r.data) && r.data[r.i+1] == 'u' {
				simple = false
			}
			r.i += 2
			continue
		case c >= utf8.RuneSelf:
			plain, simple = false, false
		}
		r.i++
	}
	r.giveUp()
	return nil
}

// unescape decodes the one-character escapes of b into r's buffer.
func (r *wireReader) unescape(b []byte) []byte {
	out := r.buf[:0]
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		i++
		switch b[i] {
		case '"', '\\', '/':
			out = append(out, b[i])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		default:
			r.giveUp()
			return nil
		}
	}
	r.buf = out
	return out
}

func (r *wireReader) intern(b []byte) string {
	if len(b) > 64 {
		return string(b)
	}
	if s, ok := r.strs[string(b)]; ok {
		return s
	}
	s := string(b)
	if r.strs == nil {
		r.strs = map[string]string{}
	}
	if len(r.strs) < 4096 {
		r.strs[s] = s
	}
	return s
}

// string reads a string field: null leaves it as it is.
func (r *wireReader) string(into *string, intern bool) {
	if r.null() {
		return
	}
	if r.peek() != '"' {
		r.giveUp()
		return
	}
	*into = r.str(intern)
}

// strings reads a list of strings (null: nil; a null element: "").
func (r *wireReader) strings(into *[]string) {
	list(r, into, func(s *string) { r.string(s, false) })
}

// bool reads a bool field: null leaves it as it is.
func (r *wireReader) bool(into *bool) {
	if r.null() {
		return
	}
	switch {
	case bytes.HasPrefix(r.data[r.i:], []byte("true")):
		*into, r.i = true, r.i+4
	case bytes.HasPrefix(r.data[r.i:], []byte("false")):
		*into, r.i = false, r.i+5
	default:
		r.giveUp()
	}
}

// uint reads a whole number field as encoding/json does (its digits
// alone, no fraction or exponent): null leaves it as it is.
func (r *wireReader) uint(into *uint64) {
	if r.null() {
		return
	}
	start := r.i
	if !r.number() {
		return
	}
	n, err := strconv.ParseUint(string(r.data[start:r.i]), 10, 64)
	if err != nil {
		r.giveUp()
		return
	}
	*into = n
}

// raw reads any value and returns its bytes (null's among them), a
// slice of the document's.
func (r *wireReader) raw() []byte {
	r.space()
	start := r.i
	r.skip(0)
	if r.bad {
		return nil
	}
	return r.data[start:r.i]
}

// skip reads one value of any kind, checking it is valid JSON.
func (r *wireReader) skip(depth int) {
	if depth > maxWireDepth {
		r.giveUp()
		return
	}
	r.space()
	switch c := r.peek(); {
	case c == '{':
		r.i++
		for n := 0; ; {
			if _, ok := r.key(&n); !ok {
				return
			}
			r.skip(depth + 1)
		}
	case c == '[':
		r.i++
		for n := 0; r.elem(&n); {
			r.skip(depth + 1)
		}
	case c == '"':
		r.skipString()
	case c == '-' || c >= '0' && c <= '9':
		r.number()
	case c == 't':
		r.literal("true")
	case c == 'f':
		r.literal("false")
	case c == 'n':
		r.literal("null")
	default:
		r.giveUp()
	}
}

func (r *wireReader) literal(word string) {
	if !bytes.HasPrefix(r.data[r.i:], []byte(word)) {
		r.giveUp()
		return
	}
	r.i += len(word)
}

// skipString reads a string (at its opening quote), checking its escapes.
func (r *wireReader) skipString() {
	r.i++
	for r.i < len(r.data) {
		c := r.data[r.i]
		switch {
		case c == '"':
			r.i++
			return
		case c < ' ':
			r.giveUp()
			return
		case c == '\\':
			r.i++
			switch r.peek() {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				r.i++
			case 'u':
				r.i++
				for k := 0; k < 4; k++ {
					if !isHex(r.peek()) {
						r.giveUp()
						return
					}
					r.i++
				}
			default:
				r.giveUp()
				return
			}
		default:
			r.i++
		}
	}
	r.giveUp()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// number reads a number as JSON writes one.
func (r *wireReader) number() bool {
	digits := func() int {
		n := 0
		for r.i < len(r.data) && r.data[r.i] >= '0' && r.data[r.i] <= '9' {
			r.i++
			n++
		}
		return n
	}
	if r.peek() == '-' {
		r.i++
	}
	switch c := r.peek(); {
	case c == '0':
		r.i++
	case c >= '1' && c <= '9':
		digits()
	default:
		return r.giveUp()
	}
	if r.peek() == '.' {
		r.i++
		if digits() == 0 {
			return r.giveUp()
		}
	}
	if c := r.peek(); c == 'e' || c == 'E' {
		r.i++
		if c := r.peek(); c == '+' || c == '-' {
			r.i++
		}
		if digits() == 0 {
			return r.giveUp()
		}
	}
	return true
}

// fields tracks the fields of one object read: a key read twice, or one
// that differs from a field's name only in case (which encoding/json
// would take for it), gives up.
type fields struct {
	names []string
	seen  uint32
}

// field is the index of key among f's names, or -1 for a key of no
// field (r skips its value); r gives up as said above.
func (f *fields) field(r *wireReader, key []byte) int {
	for i, name := range f.names {
		if string(key) == name {
			if f.seen&(1<<i) != 0 {
				r.giveUp()
				return -1
			}
			f.seen |= 1 << i
			return i
		}
	}
	for _, name := range f.names {
		if bytes.EqualFold(key, []byte(name)) {
			r.giveUp()
			return -1
		}
	}
	r.skip(0)
	return -1
}
