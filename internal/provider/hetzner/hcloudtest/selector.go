package hcloudtest

import (
	"fmt"
	"regexp"
	"strings"
)

// Label rules as documented: a key is an optional DNS-subdomain prefix and
// "/" and a name of at most 63 characters; a value is at most 63
// characters; both begin and end with an alphanumeric and hold only
// alphanumerics, '-', '_' and '.' (values may be empty).
var (
	labelNameRE   = regexp.MustCompile(`^[a-zA-Z0-9]([a-zA-Z0-9_.-]{0,61}[a-zA-Z0-9])?$`)
	labelValueRE  = regexp.MustCompile(`^([a-zA-Z0-9]([a-zA-Z0-9_.-]{0,61}[a-zA-Z0-9])?)?$`)
	dnsSubdomainR = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$`)
)

// checkLabels validates labels as the API does.
func checkLabels(l map[string]string) *apiError {
	for k, v := range l {
		prefix, name, hasPrefix := strings.Cut(k, "/")
		if !hasPrefix {
			name, prefix = prefix, ""
		}
		if hasPrefix && (len(prefix) > 253 || !dnsSubdomainR.MatchString(prefix)) {
			return invalid("labels", "label key %q has an invalid prefix", k)
		}
		if prefix == "hetzner.cloud" {
			return invalid("labels", "label key prefix hetzner.cloud/ is reserved")
		}
		if !labelNameRE.MatchString(name) {
			return invalid("labels", "label key %q is invalid", k)
		}
		if !labelValueRE.MatchString(v) {
			return invalid("labels", "label value %q of key %q is invalid", v, k)
		}
	}
	return nil
}

// selector is a parsed label selector: every requirement must hold.
type selector []requirement

type requirement struct {
	key    string
	op     string // "exists", "!exists", "=", "!=", "in", "notin"
	values []string
}

// parseSelector parses the documented syntax: k, !k, k=v, k==v, k!=v,
// k in (a,b), k notin (a,b), joined by commas.
func parseSelector(s string) (selector, error) {
	var sel selector
	s = strings.TrimSpace(s)
	for s != "" {
		var expr string
		depth, cut := 0, len(s)
		for i, ch := range s {
			if ch == '(' {
				depth++
			} else if ch == ')' {
				depth--
			} else if ch == ',' && depth == 0 {
				cut = i
				break
			}
		}
		expr, s = strings.TrimSpace(s[:cut]), strings.TrimSpace(strings.TrimPrefix(s[cut:], ","))
		req, err := parseRequirement(expr)
		if err != nil {
			return nil, err
		}
		sel = append(sel, req)
	}
	return sel, nil
}

func parseRequirement(expr string) (requirement, error) {
	if expr == "" {
		return requirement{}, fmt.Errorf("empty expression")
	}
	for _, op := range []string{" notin ", " in "} {
		if k, rest, ok := strings.Cut(expr, op); ok {
			rest = strings.TrimSpace(rest)
			if !strings.HasPrefix(rest, "(") || !strings.HasSuffix(rest, ")") {
				return requirement{}, fmt.Errorf("%q: values must be in parentheses", expr)
			}
			var vals []string
			for _, v := range strings.Split(rest[1:len(rest)-1], ",") {
				vals = append(vals, strings.TrimSpace(v))
			}
			return requirement{key: strings.TrimSpace(k), op: strings.TrimSpace(op), values: vals}, validKey(strings.TrimSpace(k))
		}
	}
	for _, op := range []string{"!=", "==", "="} {
		if k, v, ok := strings.Cut(expr, op); ok {
			o := op
			if o == "==" {
				o = "="
			}
			k, v = strings.TrimSpace(k), strings.TrimSpace(v)
			if !labelValueRE.MatchString(v) {
				return requirement{}, fmt.Errorf("%q: invalid value", expr)
			}
			return requirement{key: k, op: o, values: []string{v}}, validKey(k)
		}
	}
	if k, ok := strings.CutPrefix(expr, "!"); ok {
		return requirement{key: strings.TrimSpace(k), op: "!exists"}, validKey(strings.TrimSpace(k))
	}
	return requirement{key: expr, op: "exists"}, validKey(expr)
}

func validKey(k string) error {
	if checkLabels(map[string]string{k: ""}) != nil {
		return fmt.Errorf("invalid label key %q", k)
	}
	return nil
}

func (s selector) matches(labels map[string]string) bool {
	for _, r := range s {
		v, ok := labels[r.key]
		switch r.op {
		case "exists":
			if !ok {
				return false
			}
		case "!exists":
			if ok {
				return false
			}
		case "=":
			if !ok || v != r.values[0] {
				return false
			}
		case "!=":
			if ok && v == r.values[0] {
				return false
			}
		case "in", "notin":
			found := false
			for _, want := range r.values {
				found = found || (ok && v == want)
			}
			if found != (r.op == "in") {
				return false
			}
		}
	}
	return true
}
