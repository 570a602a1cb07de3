package tfconfig

import (
	"reflect"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// TestTravCacheKeepsReadingExpressionsOnly: the travCache hands out the
// traversals an expression's own walk finds, and keeps them only for the
// expressions that read something: a literal, or a string of literal
// text, has none and is not kept.
func TestTravCacheKeepsReadingExpressionsOnly(t *testing.T) {
	var c travCache
	for _, src := range []string{
		`"r1"`, `"a\nb"`, `1`, `true`, `null`, `<<EOT
text
EOT
`,
		`fwtest_latent.r0.id`, `"${local.changed}-x"`, `"%{ if var.a }x%{ endif }"`, `[1, local.b]`, `{ a = "x" }`,
	} {
		expr, diags := hclsyntax.ParseExpression([]byte(src), "main.tf", hcl.Pos{Line: 1, Column: 1})
		if diags.HasErrors() {
			t.Fatalf("%s: %v", src, diags)
		}
		for range 2 {
			if got, want := c.variables(expr), expr.Variables(); !reflect.DeepEqual(got, want) {
				t.Errorf("%s: variables %v, want %v", src, got, want)
			}
			if got, want := c.references(expr), refTraversals(expr); !reflect.DeepEqual(got, want) {
				t.Errorf("%s: references %v, want %v", src, got, want)
			}
		}
	}
	// The last five: the four that read something, and the object of
	// literals (not told from one that reads).
	if len(c.vars) != 5 || len(c.refs) != 5 {
		t.Errorf("kept %d and %d expressions' traversals, want 5", len(c.vars), len(c.refs))
	}
}
