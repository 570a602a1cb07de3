package engine

import (
	"slices"

	"github.com/kyku/action/internal/value"
)

// echoes lists the top-level attributes of vals (an object's values: as
// read, as planned) that mask leaves out yet hold a text of a secret
// part of the object: a provider's attribute computed from a secret
// argument (terraform_data's output, a copy of its input) holds the
// secret although neither its schema nor the configuration says so. A
// plan masks them whole, as it masks what they copy. within are the
// paths of the properties of mask secret only in parts.
func echoes(mask []string, within map[string][]string, vals ...map[string]any) []string {
	secret := map[string]bool{}
	for _, v := range vals {
		for _, n := range mask {
			paths, partly := within[n]
			texts := appendSecretTexts(nil, v[n], paths, partly)
			for _, s := range texts {
				// Unknown is every unknown value's placeholder, no one's secret.
				if s != "" && s != value.Unknown {
					secret[s] = true
				}
			}
		}
	}
	if len(secret) == 0 {
		return nil
	}
	var out []string
	for _, v := range vals {
		for n, x := range v {
			if slices.Contains(mask, n) || slices.Contains(out, n) {
				continue
			}
			if slices.ContainsFunc(stringLeaves(nil, x), func(s string) bool { return secret[s] }) {
				out = append(out, n)
			}
		}
	}
	slices.Sort(out)
	return out
}

// stringLeaves appends the strings among v's leaves.
func stringLeaves(out []string, v any) []string {
	switch x := v.(type) {
	case string:
		return append(out, x)
	case []any:
		for _, e := range x {
			out = stringLeaves(out, e)
		}
	case map[string]any:
		for _, e := range x {
			out = stringLeaves(out, e)
		}
	}
	return out
}
