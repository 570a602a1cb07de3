package tfconfig_test

import (
	"slices"
	"testing"

	"github.com/kyku/action/internal/tfconfig"
)

// TestRemovedStartsItsProvider: a removed block naming a resource whose
// provider no configured resource uses still has that provider started
// (its object is read to be forgotten or destroyed), as OpenTofu does;
// in a called module too. (An instance is no removed block's address:
// errors/moved-removed.)
func TestRemovedStartsItsProvider(t *testing.T) {
	for _, tc := range []struct{ name, from string }{
		{"a resource", "TP_item.gone"},
		{"a module's resource", "module.m.TP_item.gone"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, testProviders[0])
			w.write(map[string]string{"main.tf": `terraform {
  required_providers {
    TP = { source = "kyku/TP" }
  }
}
removed {
  from = ` + tc.from + `
  lifecycle {
    destroy = false
  }
}
resource "terraform_data" "stays" {
  input = "stays"
}
`})
			cfg := w.mustLoad(tfconfig.Inputs{})
			var names []string
			for _, p := range cfg.Providers {
				names = append(names, p.Name)
			}
			if want := testProviders[0].Type; !slices.Contains(names, want) {
				t.Errorf("providers %v, want %s among them", names, want)
			}
		})
	}
}
