package property

// String returns property k of p as a string ("" when absent).
func String(p map[string]any, k string) string {
	s, _ := p[k].(string)
	return s
}

// StringOr returns property k of p as a string, def when absent or empty.
func StringOr(p map[string]any, k, def string) string {
	if s := String(p, k); s != "" {
		return s
	}
	return def
}

// Int returns property k of p as an int (def when absent).
func Int(p map[string]any, k string, def int) int {
	if f, ok := p[k].(float64); ok {
		return int(f)
	}
	return def
}

// Bool returns property k of p as a bool (false when absent).
func Bool(p map[string]any, k string) bool {
	b, _ := p[k].(bool)
	return b
}

// Strings returns the strings of list property k of p (other elements are
// skipped); empty, not nil, when absent.
func Strings(p map[string]any, k string) []string {
	l, _ := p[k].([]any)
	out := make([]string, 0, len(l))
	for _, v := range l {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// Diff returns what is in want but not in have, and what is in have but
// not in want, each in the order of its list.
func Diff[T comparable](have, want []T) (add, remove []T) {
	h, w := map[T]bool{}, map[T]bool{}
	for _, x := range have {
		h[x] = true
	}
	for _, x := range want {
		w[x] = true
		if !h[x] {
			add = append(add, x)
		}
	}
	for _, x := range have {
		if !w[x] {
			remove = append(remove, x)
		}
	}
	return add, remove
}

// List returns ss as a list property.
func List(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
