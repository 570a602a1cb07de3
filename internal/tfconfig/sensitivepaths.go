package tfconfig

import (
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/zclconf/go-cty/cty"

	"github.com/kyku/action/internal/lang/marks"
)

// sensitiveWithin lists the paths inside v (value.Ref's Path syntax:
// `.password`, `["key"]`, `[0]`) whose values are sensitive, as
// OpenTofu's plan marks them, when v holds a sensitive value without
// being sensitive as a whole. ok is false when v is sensitive whole, or
// a path cannot be named (a set's element), or v is not wholly known
// (what an unknown part turns into is not known either): the whole
// value is then sensitive.
func sensitiveWithin(v cty.Value) (paths []string, ok bool) {
	if v.HasMark(marks.Sensitive) || !v.IsWhollyKnown() {
		return nil, false
	}
	_, pvms := v.UnmarkDeepWithPaths()
	for _, pvm := range pvms {
		if _, secret := pvm.Marks[marks.Sensitive]; !secret {
			continue
		}
		p, named := refPath(pvm.Path)
		if !named || p == "" {
			return nil, false
		}
		paths = append(paths, p)
	}
	slices.Sort(paths)
	return slices.Compact(paths), len(paths) > 0
}

// refPath writes a cty path in value.Ref's Path syntax; named is false
// for a step that has no name there (a set's element).
func refPath(path cty.Path) (string, bool) {
	var b strings.Builder
	for _, st := range path {
		switch st := st.(type) {
		case cty.GetAttrStep:
			if !writeKey(&b, st.Name) {
				return "", false
			}
		case cty.IndexStep:
			switch st.Key.Type() {
			case cty.String:
				if !writeKey(&b, st.Key.AsString()) {
					return "", false
				}
			case cty.Number:
				n, acc := st.Key.AsBigFloat().Int64()
				if acc != big.Exact || n < 0 {
					return "", false
				}
				b.WriteString("[" + strconv.FormatInt(n, 10) + "]")
			default:
				return "", false
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// writeKey writes a map key's or attribute's step: .name when name is
// an identifier, else ["name"]; false for a name the syntax cannot hold
// (a quote, a backslash or a control character in it).
func writeKey(b *strings.Builder, name string) bool {
	ident := name != ""
	for i, r := range name {
		if r == '"' || r == '\\' || r < 0x20 {
			return false
		}
		if !(r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || i > 0 && '0' <= r && r <= '9') {
			ident = false
		}
	}
	if ident {
		b.WriteString("." + name)
	} else {
		b.WriteString(`["` + name + `"]`)
	}
	return true
}
