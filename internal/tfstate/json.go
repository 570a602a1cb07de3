package tfstate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/value"
)

// appendString writes s as json.Marshal does (<, > and & escaped).
func appendString(b []byte, s string) []byte { return value.AppendString(b, s) }

// compactHTML is raw as json.Marshal writes a json.RawMessage: compact,
// with <, >, &, U+2028 and U+2029 escaped. raw must be valid JSON.
func compactHTML(raw []byte) json.RawMessage {
	var buf bytes.Buffer
	buf.Grow(len(raw))
	if err := json.Compact(&buf, raw); err != nil {
		return append(json.RawMessage(nil), raw...)
	}
	var out bytes.Buffer
	json.HTMLEscape(&out, buf.Bytes())
	return out.Bytes()
}

// compactValid is compactHTML of raw known to be valid JSON (read by a
// JSON decoder that accepted it), in one pass through scratch, a buffer
// of the caller's: what it returns is as long as it needs to be (a state
// keeps it).
func compactValid(scratch *[]byte, raw []byte) json.RawMessage {
	const hex = "0123456789abcdef"
	out := (*scratch)[:0]
	inString := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case inString && c == '\\':
			out = append(out, c, raw[i+1])
			i++
			continue
		case c == '"':
			inString = !inString
		case !inString && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			continue
		}
		switch {
		case c == '<' || c == '>' || c == '&':
			out = append(out, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
		case c == 0xE2 && i+2 < len(raw) && raw[i+1] == 0x80 && raw[i+2]&^1 == 0xA8:
			out = append(out, '\\', 'u', '2', '0', '2', hex[raw[i+2]&0xF])
			i += 2
		default:
			out = append(out, c)
		}
	}
	*scratch = out
	return append(make(json.RawMessage, 0, len(out)), out...)
}

// lineCol is the 1-based line and column of offset in data.
func lineCol(data []byte, offset int64) (int, int) {
	offset = max(0, min(offset, int64(len(data))))
	before := data[:offset]
	line := bytes.Count(before, []byte{'\n'}) + 1
	col := int(offset) - bytes.LastIndexByte(before, '\n')
	return line, col
}

// jsonError says what is wrong with data where the JSON decoder stopped
// (line and column of the value's last byte), in words with no Go type
// names, wrapping state.ErrCorrupt.
func jsonError(name string, data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		l, c := lineCol(data, syn.Offset-1)
		return fmt.Errorf("%s:%d:%d: %w: not valid JSON: %s", name, l, c, state.ErrCorrupt, syn.Error())
	case errors.As(err, &typ):
		l, c := lineCol(data, typ.Offset-1)
		field := typ.Field
		if field == "" {
			field = "the document"
		}
		return fmt.Errorf("%s:%d:%d: %w: %s: %s", name, l, c, state.ErrCorrupt, field, typeMismatch(typ))
	}
	return fmt.Errorf("%s: %w: %s", name, state.ErrCorrupt, plainJSONError(err))
}

// plainJSONError is a decoding error of a part of a document, in words.
func plainJSONError(err error) string {
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		return typeMismatch(typ)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

func typeMismatch(e *json.UnmarshalTypeError) string {
	return fmt.Sprintf("want %s, found %s", kindWords(e.Type), e.Value)
}

// kindWords names what a Go type of the wire structs holds, in JSON's terms.
func kindWords(t reflect.Type) string {
	if t == nil {
		return "another value"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number of 0 or more"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Pointer:
		return kindWords(t.Elem())
	}
	return "another value"
}

// maxExponent bounds the decimal exponent of a number that goes through
// cty: its decimal form, which OpenTofu writes, would otherwise take as
// many digits (1e999999999 would hang the encoder, OpenTofu's as well).
const maxExponent = 1000

// checkNumbers refuses, in valid JSON raw, a number that is longer than
// maxExponent bytes or whose exponent is beyond ±maxExponent.
func checkNumbers(raw []byte) error {
	inString := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case inString:
			if c == '\\' {
				i++
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
		case c == '-' || (c >= '0' && c <= '9'):
			j := i
			for j < len(raw) && strings.IndexByte("+-0123456789.eE", raw[j]) >= 0 {
				j++
			}
			num := raw[i:j]
			if len(num) > maxExponent {
				return fmt.Errorf("a number of %d digits is out of range", len(num))
			}
			if e := bytes.IndexAny(num, "eE"); e >= 0 {
				exp, err := strconv.Atoi(strings.TrimPrefix(string(num[e+1:]), "+"))
				if err != nil || exp > maxExponent || exp < -maxExponent {
					return fmt.Errorf("number %s is out of range", num)
				}
			}
			i = j - 1
		}
	}
	return nil
}
