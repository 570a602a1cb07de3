package tfconfig_test

import (
	"testing"

	"github.com/kyku/action/internal/tfconfig"
)

// TestSecretElementOfAKykuSetMaskedWhole: a secret inside one element of
// a Kyku type's set (ingress) is not masked by its path: the plan
// compares sets sorted, so the configuration's index need not be the
// shown one; the whole property is masked. A map beside it (tags) is
// masked in parts.
func TestSecretElementOfAKykuSetMaskedWhole(t *testing.T) {
	w := newWorld(t, tfplugintestSDK)
	w.write(map[string]string{"main.tf": head + `
provider "kyku" {
  name = "sim"
}
variable "cidr" {
  type      = string
  sensitive = true
  default   = "10.9.9.0/24"
}
resource "kyku_vpc" "main" {
  cidr = "10.0.0.0/16"
  tags = { team = "web", secret = var.cidr }
}
resource "kyku_security_group" "web" {
  network = kyku_vpc.main.id
  ingress = [{ port = 443, cidr = var.cidr }, { port = 80, cidr = "0.0.0.0/0" }]
}
`})
	p := w.plan(w.mustLoad(tfconfig.Inputs{}))
	for _, c := range p.Changes {
		switch c.ResourceID {
		case "kyku_security_group.web":
			if within, ok := c.SensitiveWithin["ingress"]; ok {
				t.Errorf("ingress is masked only at %v, want whole", within)
			}
		case "kyku_vpc.main":
			if within := c.SensitiveWithin["tags"]; len(within) != 1 || within[0] != ".secret" {
				t.Errorf("tags: masked at %v, want .secret", within)
			}
		}
	}
}
