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
