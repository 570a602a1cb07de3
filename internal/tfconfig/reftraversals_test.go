package tfconfig_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/kyku/action/internal/tfconfig"
)

// TestRefsReadTheAttributeTaken: an expression reading one attribute of
// a resource's instances through an index computed at plan
// (TP_item.a[each.key].id) or through a for (s.id) reads that attribute,
// not the sensitive one beside it, as OpenTofu reads it: the value is not
// masked, and an output of it need not be declared sensitive. Reading
// the sensitive attribute so still is sensitive.
func TestRefsReadTheAttributeTaken(t *testing.T) {
	base := head + `
variable "token" {
  default   = "hunter22-token"
  sensitive = true
}
resource "TP_item" "a" {
  for_each = toset(["x", "y"])
  name     = "a-${each.key}"
  secret   = var.token
}
resource "TP_item" "b" {
  for_each = toset(["x", "y"])
  name     = "b-${each.key}"
  value    = TP_item.a[each.key].id
}
`
	for _, tc := range []struct {
		name, output string
		refused      bool
	}{
		{"an attribute through a for", `{ for k, s in TP_item.a : k => s.id }`, false},
		{"an attribute through a computed index", `[for k in ["x", "y"] : TP_item.a[k].name]`, false},
		{"the sensitive attribute through a for", `{ for k, s in TP_item.a : k => s.secret }`, true},
		{"the sensitive attribute through a computed index", `[for k in ["x", "y"] : TP_item.a[k].secret]`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tp := testProviders[0]
			w := newWorld(t, tp)
			w.write(map[string]string{"main.tf": base + "output \"o\" {\n  value = " + tc.output + "\n}\n"})
			cfg := w.mustLoad(tfconfig.Inputs{})
			p, err := w.engine(cfg).Plan(t.Context(), cfg)
			if refused := err != nil && strings.Contains(err.Error(), "which is sensitive"); refused != tc.refused {
				t.Fatalf("refused %v, want %v: %v", refused, tc.refused, err)
			}
			if err != nil {
				return
			}
			if c := change(p, tp.Type+`_item.b["x"]`); c == nil || slices.Contains(c.Sensitive, "value") {
				t.Errorf("b's value, reading a's id, is masked: %+v", c)
			}
		})
	}
}
