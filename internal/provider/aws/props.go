package aws

import (
	b64 "encoding/base64"
	"errors"
	"fmt"
	"sort"
	"strconv"

	"github.com/kyku/action/internal/provider"
)

func pstr(p map[string]any, k string) string {
	s, _ := p[k].(string)
	return s
}

func pint(p map[string]any, k string, def int) int {
	if f, ok := p[k].(float64); ok {
		return int(f)
	}
	return def
}

func pbool(p map[string]any, k string) bool {
	b, _ := p[k].(bool)
	return b
}

func pstrs(p map[string]any, k string) []string {
	l, _ := p[k].([]any)
	out := make([]string, 0, len(l))
	for _, v := range l {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func anys(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

func sortedStrs(ss []string) []string {
	out := append([]string(nil), ss...)
	sort.Strings(out)
	return out
}

// diffSets returns what is in want but not have, and in have but not want.
func diffSets(have, want []string) (add, remove []string) {
	h, w := map[string]bool{}, map[string]bool{}
	for _, s := range have {
		h[s] = true
	}
	for _, s := range want {
		w[s] = true
		if !h[s] {
			add = append(add, s)
		}
	}
	for _, s := range have {
		if !w[s] {
			remove = append(remove, s)
		}
	}
	return add, remove
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

func object(id, cloudName string, props, outputs map[string]any) provider.Object {
	if outputs == nil {
		outputs = map[string]any{}
	}
	outputs["id"] = id
	return provider.Object{ID: id, CloudName: cloudName, Properties: props, Outputs: outputs}
}

func required(r provider.Resource, keys ...string) error {
	for _, k := range keys {
		if _, ok := r.Properties[k]; !ok {
			return fmt.Errorf("%s %q: property %s is required on aws", r.Type, r.Name, k)
		}
	}
	return nil
}

func isGone(err error) bool { return errors.Is(err, provider.ErrNotFound) }

func base64(s string) string { return b64.StdEncoding.EncodeToString([]byte(s)) }
