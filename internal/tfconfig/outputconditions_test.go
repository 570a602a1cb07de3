package tfconfig_test

import (
	"strings"
	"testing"

	"github.com/kyku/action/internal/tfconfig"
)

// TestOutputPreconditions: an output's precondition is checked by the
// plan, in OpenTofu's words, whether it reads only variables (a root
// module's output or a called module's) or a resource's value known at
// plan; one that holds lets the plan through.
func TestOutputPreconditions(t *testing.T) {
	module := `
variable "n" {}
output "half" {
  value = var.n / 2
  precondition {
    condition     = var.n % 2 == 0
    error_message = "n must be even, not ${var.n}."
  }
}
`
	main := `
variable "name" {
  default = "a"
}
variable "n" {
  default = 4
}
resource "TP_item" "a" {
  name = var.name
}
module "m" {
  source = "./m"
  n      = var.n
}
output "name" {
  value = TP_item.a.name
  precondition {
    condition     = TP_item.a.name == "a"
    error_message = "The item is named ${TP_item.a.name}."
  }
}
`
	for _, tp := range testProviders {
		t.Run(tp.Type, func(t *testing.T) {
			for _, tc := range []struct {
				name string
				vars []tfconfig.VarArg
				want []string // what the error holds; none for a plan
			}{
				{"both hold", nil, nil},
				{"the resource's fails", []tfconfig.VarArg{{Name: "name", Value: "b"}}, []string{"main.tf:26:21: Module output value precondition failed: The item is named b."}},
				{"the module's fails", []tfconfig.VarArg{{Name: "n", Value: "3"}}, []string{"m/main.tf:6:21: Module output value precondition failed", "n must be even, not 3."}},
			} {
				t.Run(tc.name, func(t *testing.T) {
					w := newWorld(t, tp)
					w.write(map[string]string{"main.tf": head + main, "m/main.tf": module})
					cfg, err := w.load(tfconfig.Inputs{Vars: tc.vars})
					if err == nil {
						_, err = w.engine(cfg).Plan(t.Context(), cfg)
					}
					if tc.want == nil {
						if err != nil {
							t.Fatalf("plan: %v", err)
						}
						return
					}
					if err == nil {
						t.Fatalf("plan succeeded, want an error holding %q", tc.want)
					}
					for _, want := range tc.want {
						if !strings.Contains(err.Error(), want) {
							t.Errorf("plan: %v, want an error holding %q", err, want)
						}
					}
				})
			}
		})
	}
}
