package tfconfig_test

import (
	"bytes"
	"math/big"
	"strings"
	"testing"

	kykurender "github.com/kyku/action/internal/render"
	"github.com/kyku/action/internal/tfconfig"
)

// TestNumbersKeepTheirPrecision: numbers are Terraform's 512-bit ones all
// the way to the plan: 2^53+1 and 1/3 in an output, and set as a
// resource's argument, show every digit OpenTofu shows, not the float64
// nearest them.
func TestNumbersKeepTheirPrecision(t *testing.T) {
	third := new(big.Float).SetPrec(512).Quo(big.NewFloat(1).SetPrec(512), big.NewFloat(3).SetPrec(512)).Text('f', -1)
	w := newWorld(t, testProviders[0])
	w.write(map[string]string{"main.tf": head + `
locals {
  big      = 9007199254740993 + 0
  fraction = 1 / 3
}
resource "terraform_data" "n" {
  input = { big = local.big, fraction = local.fraction, again = local.big * 1 }
}
output "big" {
  value = local.big
}
output "fraction" {
  value = local.fraction
}
`})
	p := w.plan(w.mustLoad(tfconfig.Inputs{}))
	var out bytes.Buffer
	if err := kykurender.PlanJSON(&out, p, kykurender.JSONOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`"big": 9007199254740993`, `"again": 9007199254740993`, `"fraction": ` + third,
		`"new": 9007199254740993`, `"new": ` + third,
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the plan's JSON lacks %s:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "9007199254740992") || strings.Contains(out.String(), "0.3333333333333333,") {
		t.Errorf("the plan's JSON shows a rounded number:\n%s", out.String())
	}
}
