package tfplugin_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/encoding/protowire"
)

// protoField is a field as a .proto file declares it.
type protoField struct {
	num  protowire.Number
	wire protowire.Type
}

// protoMessages are a .proto file's messages by name within the package
// (PlanResourceChange.Request), each its fields by name; a map field's
// entry is the message protoc makes of it (ResourceSchemasEntry: key 1,
// value 2).
type protoMessages map[string]map[string]protoField

// parseProto reads the messages of a proto3 file: enough of the language
// for the plugin protocol's files (nested messages and enums, oneof, map,
// optional, repeated, reserved, options, services skipped).
func parseProto(src string) (protoMessages, error) {
	p := &protoParser{toks: protoTokens(src)}
	p.enums = map[string]bool{}
	p.messages = map[string]bool{}
	if err := p.file(); err != nil {
		return nil, err
	}
	out := protoMessages{}
	for _, f := range p.fields {
		wire, err := p.wireType(f)
		if err != nil {
			return nil, err
		}
		if out[f.scope] == nil {
			out[f.scope] = map[string]protoField{}
		}
		out[f.scope][f.name] = protoField{num: f.num, wire: wire}
	}
	for m := range p.messages {
		if out[m] == nil {
			out[m] = map[string]protoField{}
		}
	}
	return out, nil
}

// rawField is a field before its type is resolved.
type rawField struct {
	scope, name, typ string
	num              protowire.Number
	repeated         bool
}

type protoParser struct {
	toks     []string
	pos      int
	fields   []rawField
	enums    map[string]bool // full names
	messages map[string]bool
}

// protoTokens splits src into identifiers (dotted names included),
// numbers, quoted strings and punctuation, without comments.
func protoTokens(src string) []string {
	var toks []string
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case strings.HasPrefix(src[i:], "//"):
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case strings.HasPrefix(src[i:], "/*"):
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				return toks
			}
			i += end + 4
		case c == '"' || c == '\'':
			j := i + 1
			for j < len(src) && src[j] != c {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			toks = append(toks, src[i:min(j+1, len(src))])
			i = j + 1
		case unicode.IsSpace(rune(c)):
			i++
		case c == '_' || c == '.' || unicode.IsLetter(rune(c)) || unicode.IsDigit(rune(c)):
			j := i
			for j < len(src) && (src[j] == '_' || src[j] == '.' || unicode.IsLetter(rune(src[j])) || unicode.IsDigit(rune(src[j]))) {
				j++
			}
			toks = append(toks, src[i:j])
			i = j
		default:
			toks = append(toks, string(c))
			i++
		}
	}
	return toks
}

func (p *protoParser) next() string {
	if p.pos >= len(p.toks) {
		return ""
	}
	t := p.toks[p.pos]
	p.pos++
	return t
}

func (p *protoParser) peek() string {
	if p.pos >= len(p.toks) {
		return ""
	}
	return p.toks[p.pos]
}

func (p *protoParser) expect(want string) error {
	if got := p.next(); got != want {
		return fmt.Errorf("proto: token %d: want %q, got %q", p.pos, want, got)
	}
	return nil
}

// skipStatement skips to the end of a statement, a block included.
func (p *protoParser) skipStatement() error {
	depth := 0
	for {
		switch p.next() {
		case "":
			return fmt.Errorf("proto: unexpected end in a statement")
		case "{":
			depth++
		case "}":
			depth--
			if depth == 0 {
				return nil
			}
		case ";":
			if depth == 0 {
				return nil
			}
		}
	}
}

func (p *protoParser) file() error {
	for p.peek() != "" {
		var err error
		switch p.peek() {
		case "message":
			p.next()
			err = p.message("")
		case "enum":
			p.next()
			p.enums[p.next()] = true
			err = p.skipStatement()
		default: // syntax, package, import, option, service
			err = p.skipStatement()
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// message reads a message's name and body; scope is the enclosing
// message's full name ("" at the top).
func (p *protoParser) message(scope string) error {
	name := protoJoin(scope, p.next())
	p.messages[name] = true
	if err := p.expect("{"); err != nil {
		return err
	}
	for {
		var err error
		switch t := p.peek(); t {
		case "}":
			p.next()
			return nil
		case "":
			return fmt.Errorf("proto: message %s: unexpected end", name)
		case "message":
			p.next()
			err = p.message(name)
		case "enum":
			p.next()
			p.enums[protoJoin(name, p.next())] = true
			err = p.skipStatement()
		case "oneof":
			p.next()
			p.next() // its name
			if err = p.expect("{"); err != nil {
				return err
			}
			for err == nil && p.peek() != "}" {
				if p.peek() == "option" {
					err = p.skipStatement()
				} else {
					err = p.field(name)
				}
			}
			p.next()
		case "reserved", "option", "extensions":
			err = p.skipStatement()
		case "map":
			err = p.mapField(name)
		default:
			err = p.field(name)
		}
		if err != nil {
			return err
		}
	}
}

// field reads `[repeated|optional] type name = number [options];`.
func (p *protoParser) field(scope string) error {
	f := rawField{scope: scope}
	switch p.peek() {
	case "repeated":
		f.repeated = true
		p.next()
	case "optional", "required":
		p.next()
	}
	f.typ, f.name = p.next(), p.next()
	num, err := p.number()
	if err != nil {
		return fmt.Errorf("proto: %s.%s: %w", scope, f.name, err)
	}
	f.num = num
	p.fields = append(p.fields, f)
	return p.skipStatement()
}

// mapField reads `map<K, V> name = number;`: a repeated field of the
// entry message protoc makes, NameEntry{K key = 1; V value = 2;}.
func (p *protoParser) mapField(scope string) error {
	p.next()
	if err := p.expect("<"); err != nil {
		return err
	}
	key := p.next()
	if err := p.expect(","); err != nil {
		return err
	}
	val := p.next()
	if err := p.expect(">"); err != nil {
		return err
	}
	name := p.next()
	num, err := p.number()
	if err != nil {
		return fmt.Errorf("proto: %s.%s: %w", scope, name, err)
	}
	entry := protoJoin(scope, entryName(name))
	p.messages[entry] = true
	p.fields = append(p.fields,
		rawField{scope: scope, name: name, typ: entry, num: num, repeated: true},
		rawField{scope: entry, name: "key", typ: key, num: 1},
		rawField{scope: entry, name: "value", typ: val, num: 2})
	return p.skipStatement()
}

// number reads `= N`.
func (p *protoParser) number() (protowire.Number, error) {
	if err := p.expect("="); err != nil {
		return 0, err
	}
	t := p.next()
	n, err := strconv.ParseInt(t, 0, 32)
	if err != nil {
		return 0, fmt.Errorf("field number %q: %w", t, err)
	}
	return protowire.Number(n), nil
}

// scalarWire are the wire types of the scalar types.
var scalarWire = map[string]protowire.Type{
	"double": protowire.Fixed64Type, "float": protowire.Fixed32Type,
	"int32": protowire.VarintType, "int64": protowire.VarintType, "uint32": protowire.VarintType, "uint64": protowire.VarintType,
	"sint32": protowire.VarintType, "sint64": protowire.VarintType, "bool": protowire.VarintType,
	"fixed32": protowire.Fixed32Type, "sfixed32": protowire.Fixed32Type,
	"fixed64": protowire.Fixed64Type, "sfixed64": protowire.Fixed64Type,
	"string": protowire.BytesType, "bytes": protowire.BytesType,
}

// wireType is f's wire type: a repeated field is length-delimited (proto3
// packs repeated scalars), an enum a varint, a message length-delimited.
func (p *protoParser) wireType(f rawField) (protowire.Type, error) {
	if f.repeated {
		return protowire.BytesType, nil
	}
	if w, ok := scalarWire[f.typ]; ok {
		return w, nil
	}
	// A type name resolves from the innermost scope outwards.
	for scope := f.scope; ; {
		full := protoJoin(scope, f.typ)
		switch {
		case p.enums[full]:
			return protowire.VarintType, nil
		case p.messages[full]:
			return protowire.BytesType, nil
		}
		if scope == "" {
			break
		}
		scope = scope[:max(strings.LastIndex(scope, "."), 0)]
	}
	if strings.Contains(f.typ, ".") { // another package's message (google.protobuf.Timestamp)
		return protowire.BytesType, nil
	}
	return 0, fmt.Errorf("proto: %s.%s: unknown type %s", f.scope, f.name, f.typ)
}

func protoJoin(scope, name string) string {
	if scope == "" {
		return name
	}
	return scope + "." + name
}

// entryName is protoc's name of a map field's entry message:
// resource_schemas → ResourceSchemasEntry.
func entryName(s string) string {
	var b strings.Builder
	up := true
	for _, r := range s {
		switch {
		case r == '_':
			up = true
		case up:
			b.WriteRune(unicode.ToUpper(r))
			up = false
		default:
			b.WriteRune(r)
		}
	}
	return b.String() + "Entry"
}

// TestParseProto: the parts of the language the plugin protocol's files
// use, each field with its number and wire type.
func TestParseProto(t *testing.T) {
	got, err := parseProto(`
syntax = "proto3"; // a comment
package p;
import "google/protobuf/timestamp.proto";
/* a block
   comment */
enum Kind { A = 0; B = 1; }
message Outer {
    message Inner {
        enum Mode { X = 0; }
        Mode mode = 1;
        oneof choice { string s = 2; int64 i = 3; }
    }
    repeated Inner inners = 1;
    map<string, Inner> by_name = 2;
    Kind kind = 3 [deprecated = true];
    optional int64 n = 4;
    reserved 5;
    google.protobuf.Timestamp at = 6;
    Inner.Mode mode = 7;
    fixed64 f = 8;
}
service S { rpc Call(Outer) returns (Outer); }
`)
	if err != nil {
		t.Fatal(err)
	}
	b, v := protowire.BytesType, protowire.VarintType
	want := protoMessages{
		"Outer": {
			"inners": {1, b}, "by_name": {2, b}, "kind": {3, v}, "n": {4, v}, "at": {6, b},
			"mode": {7, v}, "f": {8, protowire.Fixed64Type},
		},
		"Outer.Inner":       {"mode": {1, v}, "s": {2, b}, "i": {3, v}},
		"Outer.ByNameEntry": {"key": {1, b}, "value": {2, b}},
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(protoField{})); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if _, err := parseProto("message M { Unknown u = 1; }"); err == nil {
		t.Error("a field of an unknown type parsed")
	}
}
