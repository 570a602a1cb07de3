package tfconfig_test

import (
	"strings"
	"testing"

	"github.com/kyku/action/internal/tfconfig"
)

// TestCheckAssertions: a check block's assertion that fails is a warning
// of the plan, in OpenTofu's words, and does not refuse it; one that
// holds, or reads what only apply knows, says nothing; a called module's
// check blocks are checked too.
func TestCheckAssertions(t *testing.T) {
	for _, tp := range testProviders {
		t.Run(tp.Type, func(t *testing.T) {
			w := newWorld(t, tp)
			w.write(map[string]string{"main.tf": head + `
variable "replicas" {
  default = 2
}
resource "TP_item" "a" {
  name = "a"
}
check "holds" {
  assert {
    condition     = var.replicas >= 2
    error_message = "Run at least two replicas."
  }
}
check "fails" {
  assert {
    condition     = var.replicas >= 3
    error_message = "Three replicas are recommended, not ${var.replicas}."
  }
}
check "after_apply" {
  assert {
    condition     = TP_item.a.id == "never"
    error_message = "Unknown at plan."
  }
}
module "m" {
  source = "./m"
}
`, "m/main.tf": `
variable "size" {
  default = 1
}
check "in_module" {
  assert {
    condition     = var.size > 2
    error_message = "The module's check fails."
  }
}
`})
			p := w.plan(w.mustLoad(tfconfig.Inputs{}))
			if len(p.Warnings) != 2 {
				t.Fatalf("warnings %q, want two", p.Warnings)
			}
			for i, want := range []string{"/main.tf:24:21: Check block assertion failed: Three replicas are recommended, not 2.", "/m/main.tf:7:21: Check block assertion failed: The module's check fails."} {
				if !strings.HasSuffix(p.Warnings[i], want) {
					t.Errorf("warning %d: %q, want it to end with %q", i, p.Warnings[i], want)
				}
			}
		})
	}
}
