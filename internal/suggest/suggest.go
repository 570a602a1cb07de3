// Package suggest finds the likely intended name of a mistyped one, for
// the "did you mean" of every error that names an unknown key, type,
// command, flag, resource or attribute.
package suggest

import (
	"fmt"
	"strings"
)

// DidYouMean returns ` (did you mean "x"?)` for the candidate closest to
// s, or "" when none is close enough to be a likely typo.
func DidYouMean(s string, candidates []string) string {
	if best := Closest(s, candidates); best != "" {
		return fmt.Sprintf(" (did you mean %q?)", best)
	}
	return ""
}

// Closest returns the candidate closest to s, or "" when none is close
// enough to be a likely typo (the choice DidYouMean words), for callers
// that show the candidate in their own syntax (a flag as --name).
func Closest(s string, candidates []string) string {
	limit := 0 // short words: only a difference in case
	switch {
	case len(s) > 8:
		limit = 3
	case len(s) > 4:
		limit = 2
	case len(s) > 2:
		limit = 1
	}
	best, bestD := "", limit+1
	for _, c := range candidates {
		d := distance(strings.ToLower(s), strings.ToLower(c))
		if d < bestD || (d == bestD && c < best) {
			best, bestD = c, d
		}
	}
	return best
}

// Terraform is OpenTofu's hint for a name it does not know, as its
// errors end with it: ` Did you mean "x"?` for the first candidate, in
// the order given, fewer than 3 edits from s; "" when none is. Kyku's
// errors for a Terraform configuration repeat it (module calls, path
// attributes, arguments, attributes).
func Terraform(s string, candidates []string) string {
	for _, c := range candidates {
		if distance(s, c) < 3 {
			return fmt.Sprintf(" Did you mean %q?", c)
		}
	}
	return ""
}

// distance is the edit distance between a and b (bytes) in which a swap
// of two neighbours counts as one edit, as an insertion, a deletion or a
// substitution does ("nmae" is one edit from "name"): the optimal string
// alignment distance.
func distance(a, b string) int {
	// Three rows: the one before the previous holds the swaps.
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
