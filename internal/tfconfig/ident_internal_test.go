package tfconfig

import (
	"math/rand/v2"
	"testing"

	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// TestValidIdentifierIsHCLs: names are checked as hcl checks them, for
// every name of up to three characters of an alphabet of the kinds that
// matter and for random longer ones.
func TestValidIdentifierIsHCLs(t *testing.T) {
	alphabet := []string{"a", "Z", "_", "-", "0", "9", ".", " ", "$", "é", "\u212a", "\x00", "\xff", "${", "#"}
	check := func(s string) {
		if got, want := validIdentifier(s), hclsyntax.ValidIdentifier(s); got != want {
			t.Errorf("validIdentifier(%q) = %v, hcl says %v", s, got, want)
		}
	}
	check("")
	for _, a := range alphabet {
		check(a)
		for _, b := range alphabet {
			check(a + b)
			for _, c := range alphabet {
				check(a + b + c)
			}
		}
	}
	rng := rand.New(rand.NewPCG(41, 5))
	for range 2000 {
		s := ""
		for range 1 + rng.IntN(12) {
			s += alphabet[rng.IntN(len(alphabet))]
		}
		check(s)
	}
}
