package tfcorpus

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// decodeJSON decodes one JSON value keeping numbers exact.
func decodeJSON(data []byte) (any, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// normalValue is a decoded JSON value in the compared shape: numbers
// canonical, object attributes that are null left out.
func normalValue(v any) (any, error) {
	switch x := v.(type) {
	case json.Number:
		n, err := canonicalNumber(string(x))
		return n, err
	case float64:
		return canonicalNumber(strconv.FormatFloat(x, 'g', -1, 64))
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			n, err := normalValue(e)
			if err != nil {
				return nil, err
			}
			out[i] = n
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if e == nil {
				continue
			}
			n, err := normalValue(e)
			if err != nil {
				return nil, err
			}
			out[k] = n
		}
		return out, nil
	}
	return v, nil
}

// canonicalNumber is the shortest exact decimal form of a JSON number.
func canonicalNumber(s string) (Number, error) {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return "", fmt.Errorf("number %q", s)
	}
	if r.IsInt() {
		return Number(r.Num().String()), nil
	}
	for prec := 1; prec <= 1100; prec++ {
		d := r.FloatString(prec)
		if back, _ := new(big.Rat).SetString(d); back.Cmp(r) == 0 {
			return Number(d), nil
		}
	}
	return Number(r.RatString()), nil
}

var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)

// pathStep is one step of a path: .name for a key that is an
// identifier, ["key"] for any other key, [i] for an index.
func pathStep(key any) string {
	switch k := key.(type) {
	case int:
		return "[" + strconv.Itoa(k) + "]"
	case string:
		if identifier.MatchString(k) {
			return "." + k
		}
		return "[" + strconv.Quote(k) + "]"
	}
	return fmt.Sprintf("[%v]", key)
}

// showPath is a path as messages show it: "(value)" for the whole value.
func showPath(p string) string {
	if p == "" {
		return "(value)"
	}
	return strings.TrimPrefix(p, ".")
}

// showValue is a value on one line for a difference's message.
func showValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case Marker:
		return string(x)
	case Number:
		return string(x)
	case string:
		return strconv.Quote(x)
	case bool:
		return strconv.FormatBool(x)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = showValue(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		keys := sortedKeys(x)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = strconv.Quote(k) + ": " + showValue(x[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprintf("%v", v)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// parsePath splits a path of pathStep's syntax into keys and indexes.
func parsePath(p string) ([]any, error) {
	var steps []any
	for rest := p; rest != ""; {
		switch {
		case rest[0] == '.':
			end := strings.IndexAny(rest[1:], ".[")
			if end < 0 {
				end = len(rest) - 1
			}
			steps = append(steps, rest[1:1+end])
			rest = rest[1+end:]
		case strings.HasPrefix(rest, `["`):
			q, err := strconv.QuotedPrefix(rest[1:])
			if err != nil || !strings.HasPrefix(rest[1+len(q):], "]") {
				return nil, fmt.Errorf("path %q", p)
			}
			k, _ := strconv.Unquote(q)
			steps = append(steps, k)
			rest = rest[2+len(q):]
		case rest[0] == '[':
			idx, after, ok := strings.Cut(rest[1:], "]")
			n, err := strconv.Atoi(idx)
			if !ok || err != nil {
				return nil, fmt.Errorf("path %q", p)
			}
			steps = append(steps, n)
			rest = after
		default:
			return nil, fmt.Errorf("path %q", p)
		}
	}
	return steps, nil
}

// lookup is the value at steps under v; nil where there is none.
func lookup(v any, steps []any) any {
	for _, st := range steps {
		switch k := st.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			l, _ := v.([]any)
			if k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

// shownSensitive are the paths that hold a value in after (a null is
// neither secret nor shown), sorted.
func shownSensitive(after any, paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		steps, err := parsePath(p)
		if err != nil {
			return nil, err
		}
		if lookup(after, steps) != nil {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out, nil
}
