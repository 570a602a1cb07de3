package tfstate

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kyku/action/internal/lang/hclstring"
)

// KeyKind says what kind of instance key a Key is.
type KeyKind uint8

const (
	NoKey     KeyKind = iota // a resource without count or for_each
	IntKey                   // count: [0]
	StringKey                // for_each: ["a"]
)

// Key is a resource or module instance's key.
type Key struct {
	Kind KeyKind
	Int  int
	Str  string
}

// Int returns the key [i]; String the key [s].
func Int(i int) Key       { return Key{Kind: IntKey, Int: i} }
func String(s string) Key { return Key{Kind: StringKey, Str: s} }

// String is the key as addresses write it: "", [0] or ["a"] (quoted as
// HCL quotes a string, as OpenTofu's addresses do).
func (k Key) String() string {
	switch k.Kind {
	case IntKey:
		return "[" + strconv.Itoa(k.Int) + "]"
	case StringKey:
		return "[" + hclstring.Quote(k.Str) + "]"
	}
	return ""
}

// compare orders keys as OpenTofu orders instances: no key first, then
// integers by value, then strings by bytes.
func (k Key) compare(o Key) int {
	if k.Kind != o.Kind {
		return int(k.Kind) - int(o.Kind)
	}
	switch k.Kind {
	case IntKey:
		return k.Int - o.Int
	case StringKey:
		return strings.Compare(k.Str, o.Str)
	}
	return 0
}

// InstanceAddr is a parsed resource instance address.
type InstanceAddr struct {
	Module string // canonical: module.a["k"].module.b
	Mode   Mode
	Type   string
	Name   string
	Key    Key
}

// String is the address as OpenTofu writes it.
func (a InstanceAddr) String() string {
	r := Resource{Module: a.Module, Mode: a.Mode, Type: a.Type, Name: a.Name}
	return r.InstanceAddr(a.Key)
}

// ParseInstanceAddr parses a resource instance address:
// [module.NAME[KEY].]…[data.]TYPE.NAME[KEY].
func ParseInstanceAddr(s string) (InstanceAddr, error) {
	steps, err := parseSteps(s)
	if err != nil {
		return InstanceAddr{}, fmt.Errorf("address %q: %w", s, err)
	}
	var a InstanceAddr
	var mod []step
	for len(steps) >= 2 && steps[0].name == "module" && steps[0].key.Kind == NoKey {
		mod = append(mod, steps[1])
		steps = steps[2:]
	}
	a.Module = moduleString(mod)
	a.Mode = Managed
	if len(steps) == 3 && steps[0].name == "data" && steps[0].key.Kind == NoKey {
		a.Mode = Data
		steps = steps[1:]
	}
	if len(steps) != 2 || steps[0].key.Kind != NoKey {
		return InstanceAddr{}, fmt.Errorf("address %q is not a resource instance address ([module.NAME.]…TYPE.NAME[KEY])", s)
	}
	a.Type, a.Name, a.Key = steps[0].name, steps[1].name, steps[1].key
	return a, nil
}

// checkModule checks a module instance address and returns it as OpenTofu
// writes it.
func checkModule(s string) (string, error) {
	steps, err := parseSteps(s)
	if err != nil {
		return "", err
	}
	if len(steps)%2 != 0 {
		return "", fmt.Errorf("%q is not a module address (module.NAME[KEY]…)", s)
	}
	var mod []step
	for i := 0; i < len(steps); i += 2 {
		if steps[i].name != "module" || steps[i].key.Kind != NoKey {
			return "", fmt.Errorf("%q is not a module address (module.NAME[KEY]…)", s)
		}
		mod = append(mod, steps[i+1])
	}
	return moduleString(mod), nil
}

func moduleString(mod []step) string {
	var b strings.Builder
	for i, m := range mod {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString("module.")
		b.WriteString(m.name)
		b.WriteString(m.key.String())
	}
	return b.String()
}

// step is one NAME[KEY] of an address.
type step struct {
	name string
	key  Key
}

// parseSteps splits an address into its dot-separated names, each with
// its optional [N] or ["string"] key.
func parseSteps(s string) ([]step, error) {
	var steps []step
	i := 0
	for {
		j := i
		for j < len(s) && isNameByte(s[j], j == i) {
			j++
		}
		if j == i {
			return nil, fmt.Errorf("a name is missing at offset %d", i)
		}
		st := step{name: s[i:j]}
		i = j
		if i < len(s) && s[i] == '[' {
			k, n, err := parseKey(s[i:])
			if err != nil {
				return nil, err
			}
			st.key = k
			i += n
		}
		steps = append(steps, st)
		if i == len(s) {
			return steps, nil
		}
		if s[i] != '.' {
			return nil, fmt.Errorf("unexpected %q at offset %d", s[i], i)
		}
		i++
	}
}

func isNameByte(c byte, first bool) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_':
		return true
	case c >= '0' && c <= '9', c == '-':
		return !first
	}
	return false
}

// parseKey reads [N] or ["string"] at the start of s, returning the key and
// the bytes it took.
func parseKey(s string) (Key, int, error) {
	if len(s) > 1 && s[1] == '"' {
		str, n, err := unquoteHCL(s[1:])
		if err != nil {
			return Key{}, 0, err
		}
		if 1+n >= len(s) || s[1+n] != ']' {
			return Key{}, 0, fmt.Errorf("no ] after the key %s", s[1:1+n])
		}
		return String(str), n + 2, nil
	}
	end := strings.IndexByte(s, ']')
	if end < 0 {
		return Key{}, 0, fmt.Errorf("no ] after %s", s)
	}
	i, err := strconv.Atoi(s[1:end])
	if err != nil || i < 0 || strconv.Itoa(i) != s[1:end] {
		return Key{}, 0, fmt.Errorf("instance key %s is neither a whole number nor a quoted string", s[:end+1])
	}
	return Int(i), end + 1, nil
}

// unquoteHCL reads the quoted string quoteHCL writes at the start of s,
// returning it and the bytes it took.
func unquoteHCL(s string) (string, int, error) {
	var b strings.Builder
	for i := 1; i < len(s); {
		c := s[i]
		switch {
		case c == '"':
			return b.String(), i + 1, nil
		case c == '\\' && i+1 < len(s):
			switch e := s[i+1]; e {
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case '"', '\\':
				b.WriteByte(e)
			case 'u', 'U':
				n := 4
				if e == 'U' {
					n = 8
				}
				if i+2+n > len(s) {
					return "", 0, fmt.Errorf("a short \\%c escape in %s", e, s)
				}
				r, err := strconv.ParseUint(s[i+2:i+2+n], 16, 32)
				if err != nil || !utf8.ValidRune(rune(r)) {
					return "", 0, fmt.Errorf("a bad \\%c escape in %s", e, s)
				}
				b.WriteRune(rune(r))
				i += n
			default:
				return "", 0, fmt.Errorf("an unknown escape \\%c in %s", e, s)
			}
			i += 2
		case (c == '$' || c == '%') && strings.HasPrefix(s[i+1:], string(c)+"{"):
			b.WriteByte(c)
			i += 2
		default:
			b.WriteByte(c)
			i++
		}
	}
	return "", 0, fmt.Errorf("an unterminated string %s", s)
}
