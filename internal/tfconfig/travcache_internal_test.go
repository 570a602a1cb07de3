package tfconfig

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/kyku/action/internal/config"
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

// TestTravCacheSkipsWhatIsEvaluatedOnce: the arguments of a root module
// resource without count or for_each are evaluated for its one instance,
// and their traversals are not kept (50,000 such resources kept two maps
// of 50,000 entries each, read never again); a counted resource's are.
func TestTravCacheSkipsWhatIsEvaluatedOnce(t *testing.T) {
	dir := t.TempDir()
	tf := `
resource "null_resource" "a" {}
resource "null_resource" "b" {
  triggers = null_resource.a.id
}
resource "null_resource" "c" {
  count    = 2
  triggers = null_resource.a.id
}
`
	cfg := expandMain(t, dir, tf)
	exprs := map[string]*Expr{}
	for _, r := range cfg.Resources {
		if e, ok := r.Properties["triggers"].(*Expr); ok {
			exprs[r.Name] = e
		}
	}
	b, c := exprs["null_resource.b"], exprs["null_resource.c[1]"]
	if b == nil || c == nil {
		t.Fatalf("expressions %v", exprs)
	}
	for _, e := range []*Expr{b, c} {
		if want := e.attr.Variables(); !reflect.DeepEqual(e.travs, want) {
			t.Errorf("traversals %v, want %v", e.travs, want)
		}
		if want := e.sc.refsOf(refTraversals(e.attr)); !reflect.DeepEqual(e.refs, want) || len(want) != 1 {
			t.Errorf("references %v, want %v", e.refs, want)
		}
	}
	cache := &b.sc.mi.ev.travs
	native := func(e *Expr) hclsyntax.Expression { return e.attr.(hclsyntax.Expression) }
	if _, kept := cache.vars[native(b)]; kept {
		t.Error("kept the traversals of an argument evaluated once")
	}
	if _, kept := cache.refs[native(b)]; kept {
		t.Error("kept the references of an argument evaluated once")
	}
	if _, kept := cache.refs[native(c)]; !kept {
		t.Error("did not keep the references of a counted resource's argument")
	}
}

// TestFoundIsTheWalks: what found takes of an expression without a walk
// (a bare traversal's own traversal) is what each walk finds.
func TestFoundIsTheWalks(t *testing.T) {
	for _, src := range []string{
		`fwtest_latent.r0.id`, `aws_vpc.main`, `var.a`, `x[0].y`, `data.a.b.c[count.index]`, `"r1"`, `1`,
		`"${local.changed}-x"`, `[for v in var.l : v.id]`, `x[count.index].id`, `{ a = "x" }`,
	} {
		expr, diags := hclsyntax.ParseExpression([]byte(src), "main.tf", hcl.Pos{Line: 1, Column: 1})
		if diags.HasErrors() {
			t.Fatalf("%s: %v", src, diags)
		}
		if got, want := found(expr, hcl.Expression.Variables), expr.Variables(); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: variables %v, want %v", src, got, want)
		}
		if got, want := found(expr, refTraversals), refTraversals(expr); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: references %v, want %v", src, got, want)
		}
	}
}

// expandMain writes tf as dir's main.tf, then loads and expands dir.
func expandMain(t *testing.T, dir, tf string) *config.Config {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(tf), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := Load(dir, nil, Inputs{})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := Expand(m, Inputs{})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}
