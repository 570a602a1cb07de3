package tfstate

import (
	"cmp"
	"encoding/json"
	"maps"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/kyku/action/internal/schema"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/value"
)

// Sensitive paths in Kyku's model: a path that is a top-level attribute
// makes it secret whole (state.Resource.Sensitive); one that goes deeper
// makes it secret in parts, its steps kept in state.Resource's
// SensitiveWithin: a get_attr step as .name, an index by a string as
// ["key"], one by a number as [0]. That is every path OpenTofu writes for
// values of a configuration; a step the syntax cannot hold (an attribute
// name that is no identifier, a key with a quote, a set's element) makes
// its top-level attribute secret whole.

// modelSensitive are paths in Kyku's model: the top-level attributes they
// start at, sorted, and for those secret only in parts, the parts.
func modelSensitive(paths []Path) ([]string, map[string][]string) {
	names := sensitiveNames(paths)
	whole := map[string]bool{}
	var within map[string][]string
	for _, p := range paths {
		top := p.Top()
		if top == "" || whole[top] {
			continue
		}
		s, ok := withinPath(p[1:])
		if !ok || s == "" {
			whole[top] = true
			delete(within, top)
			continue
		}
		if within == nil {
			within = map[string][]string{}
		}
		within[top] = append(within[top], s)
	}
	for n := range within {
		slices.Sort(within[n])
		within[n] = slices.Compact(within[n])
	}
	return names, within
}

// withinPath writes steps in SensitiveWithin's syntax; false when one of
// them has no place there.
func withinPath(steps []PathStep) (string, bool) {
	var b strings.Builder
	for _, st := range steps {
		if st.Index == nil {
			if !value.Identifier(st.Attr) {
				return "", false
			}
			b.WriteString("." + st.Attr)
			continue
		}
		k, err := ctyjson.Unmarshal(st.Index, cty.DynamicPseudoType)
		if err != nil || k.IsNull() || !k.IsKnown() {
			return "", false
		}
		switch k.Type() {
		case cty.String:
			s := k.AsString()
			if strings.ContainsFunc(s, func(r rune) bool { return r == '"' || r == '\\' || r < 0x20 }) {
				return "", false
			}
			b.WriteString(`["` + s + `"]`)
		case cty.Number:
			n, acc := k.AsBigFloat().Int64()
			if acc != big.Exact || n < 0 || n > 999999999 {
				return "", false
			}
			b.WriteString("[" + strconv.FormatInt(n, 10) + "]")
		default:
			return "", false
		}
	}
	return b.String(), true
}

// statePath is the path of top-level attribute top and p inside it (in
// SensitiveWithin's syntax), as a Terraform state writes it: a .name step
// as get_attr, a ["key"] or [0] one as index. false when p is not in the
// syntax.
func statePath(top, p string) (Path, bool) {
	steps, ok := value.ParsePath(p)
	if !ok {
		return nil, false
	}
	out := Path{{Attr: top}}
	rest := p
	for _, st := range steps {
		var key cty.Value
		switch {
		case st.Splat():
			return nil, false
		case st.ByKey() && rest[0] == '.':
			out = append(out, PathStep{Attr: st.Key})
			rest = rest[1+len(st.Key):]
			continue
		case st.ByKey():
			key = cty.StringVal(st.Key)
			rest = rest[len(`[""]`)+len(st.Key):]
		default:
			key = cty.NumberIntVal(int64(st.Index))
			rest = rest[len("[]")+len(strconv.Itoa(st.Index)):]
		}
		b, err := ctyjson.Marshal(key, cty.DynamicPseudoType)
		if err != nil {
			return nil, false
		}
		out = append(out, PathStep{Index: compactHTML(b)})
	}
	return out, true
}

// sensitivePaths are the sensitive_attributes of an instance whose
// secret attributes are names, secret in parts as within says
// (SensitiveWithin), where orig were: orig itself when they say the same;
// else orig's paths of each attribute they say the same of, the others'
// written anew, every path in the order OpenTofu writes them.
func sensitivePaths(orig []Path, names []string, within map[string][]string) []Path {
	origNames, origWithin := modelSensitive(orig)
	if slices.Equal(origNames, names) && maps.EqualFunc(origWithin, within, slices.Equal) {
		return orig
	}
	var out []Path
	for _, n := range names {
		_, wasIn := origWithin[n]
		now, in := within[n]
		if slices.Contains(origNames, n) && wasIn == in && slices.Equal(origWithin[n], now) {
			for _, p := range orig {
				if p.Top() == n {
					out = append(out, p)
				}
			}
			continue
		}
		if !in {
			out = append(out, AttrPath(n))
			continue
		}
		for _, s := range now {
			p, ok := statePath(n, s)
			if !ok {
				p = AttrPath(n) // not a path it can write: the whole attribute is
			}
			out = append(out, p)
		}
	}
	slices.SortStableFunc(out, comparePaths)
	return slices.CompactFunc(out, func(a, b Path) bool { return comparePaths(a, b) == 0 && slices.EqualFunc(a, b, sameStep) })
}

func sameStep(a, b PathStep) bool { return a.Attr == b.Attr && string(a.Index) == string(b.Index) }

// comparePaths orders paths as OpenTofu walks a value: by attribute name
// or map key, a list's elements by index.
func comparePaths(a, b Path) int {
	for i := range min(len(a), len(b)) {
		if c := compareSteps(a[i], b[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

func compareSteps(a, b PathStep) int {
	ka, na := stepKey(a)
	kb, nb := stepKey(b)
	if na != nil && nb != nil {
		return na.Cmp(nb)
	}
	if (na == nil) != (nb == nil) {
		if na != nil {
			return -1
		}
		return 1
	}
	return strings.Compare(ka, kb)
}

// stepKey is a step's name or string key, or its number.
func stepKey(st PathStep) (string, *big.Float) {
	if st.Index == nil {
		return st.Attr, nil
	}
	var k struct {
		Value json.RawMessage `json:"value"`
		Type  string          `json:"type"`
	}
	if json.Unmarshal(st.Index, &k) != nil {
		return string(st.Index), nil
	}
	if k.Type == "number" {
		if f, _, err := big.ParseFloat(string(k.Value), 10, 512, big.ToNearestEven); err == nil {
			return "", f
		}
	}
	var s string
	if json.Unmarshal(k.Value, &s) == nil {
		return s, nil
	}
	return string(k.Value), nil
}

// stateSecret are the top-level attributes a Terraform state names as
// sensitive for sr, and the parts of those secret only in parts.
func stateSecret(sr *state.Resource) ([]string, map[string][]string) {
	names := stateSensitive(sr)
	if modelKykuType(sr) == nil || len(sr.SensitiveWithin) == 0 {
		return names, sr.SensitiveWithin
	}
	within := make(map[string][]string, len(sr.SensitiveWithin))
	for n, paths := range sr.SensitiveWithin {
		within[schema.HCLName(n)] = paths
	}
	return names, within
}
