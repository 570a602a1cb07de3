package tfconfig_test

import (
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/value"
)

// TestWholeObjectHoldsItsAttributesAlone: an instance read whole
// (random_pet.p[0], in an output or beside other references) is its
// attributes, and nothing else: not the resource's name, nor a
// variable's or another object's attribute the same expression reads.
func TestWholeObjectHoldsItsAttributesAlone(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"main.tf": `
variable "v" {
  default = { x = 1 }
}
resource "random_pet" "p" {
  count = 2
}
resource "random_pet" "q" {}
output "whole" {
  value = random_pet.p[0]
}
output "mixed" {
  value = [random_pet.q, random_pet.p[1].prefix, var.v.x]
}
`})
	cfg := loadExpanded(t, dir)
	lookup := func(r value.Ref) (any, bool) {
		obj := map[string]any{"id": "id-" + r.Resource, "length": 2.0, "separator": "-"}
		if r.Attr == value.AllAttrs {
			return obj, true
		}
		v, ok := obj[r.Attr]
		return v, ok || r.Attr == "prefix"
	}
	got := map[string]any{}
	for _, o := range cfg.Outputs {
		v, unknown := value.Resolve(o.Value, lookup)
		if unknown {
			t.Fatalf("output %s unknown", o.Name)
		}
		got[o.Name] = v
	}
	keys := func(v any) []string { m, _ := v.(map[string]any); return slices.Sorted(maps.Keys(m)) }
	if k := keys(got["whole"]); !cmp.Equal(k, []string{"id", "length", "separator"}) {
		t.Errorf("random_pet.p[0] read whole has %q, want id, length, separator", k)
	}
	mixed, _ := got["mixed"].([]any)
	if len(mixed) != 3 {
		t.Fatalf("mixed = %v", got["mixed"])
	}
	// prefix, read of random_pet.p[1], is random_pet.p's, not q's (the
	// engine's lookup gives an object every attribute of its schema); x,
	// a variable's attribute, and the names p and q are not in it.
	if k := keys(mixed[0]); !cmp.Equal(k, []string{"id", "length", "separator"}) {
		t.Errorf("random_pet.q read whole beside others has %q, want id, length, separator", k)
	}
}
