package tfprovider_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/tfconfig"
)

// TestHCLReferenceToAnAttributeTheSchemaLacks: a .tf file's argument
// that reads an attribute the provider's schema does not have (directly,
// or through a local) is refused where the argument is, before anything
// is planned, naming the reference; so is an output's, at the output.
// Without the checks they read as null.
func TestHCLReferenceToAnAttributeTheSchemaLacks(t *testing.T) {
	dir := t.TempDir()
	cloud := filepath.Join(dir, "cloud")
	if err := os.MkdirAll(cloud, 0o755); err != nil {
		t.Fatal(err)
	}
	tf := `terraform {
  required_providers {
    fwtest = { source = "kyku/fwtest", version = "0.1.0" }
  }
}

provider "fwtest" {
  dir = "CLOUD"
}

locals {
  via = fwtest_latent.a.nmae
}

resource "fwtest_latent" "a" {
  name  = "a"
  value = "v"
}

resource "fwtest_latent" "b" {
  name  = fwtest_latent.a.name
  value = fwtest_latent.a.vlue
  after = local.via
}

output "o" {
  value = fwtest_latent.a.nope
}

output "fine" {
  value = fwtest_latent.a.value
}
`
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(strings.ReplaceAll(tf, "CLOUD", cloud)), 0o600); err != nil {
		t.Fatal(err)
	}
	m, err := tfconfig.Load(dir, nil, tfconfig.Inputs{})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := tfconfig.Expand(m, tfconfig.Inputs{})
	if err != nil {
		t.Fatal(err)
	}
	e, done := readsEngine(t, dir, cfg, 0)
	defer done()
	_, err = e.Plan(t.Context(), cfg)
	var ds diag.Diagnostics
	if !errors.As(err, &ds) {
		t.Fatalf("plan: %v, want diagnostics", err)
	}
	var got []string
	for _, d := range ds {
		got = append(got, strings.ReplaceAll(d.String(), dir+string(filepath.Separator), ""))
	}
	want := []string{
		`main.tf:22:3: Unsupported attribute: This object has no argument, nested block, or exported attribute named "vlue" (read as fwtest_latent.a.vlue). Did you mean "value"?`,
		`main.tf:23:3: Unsupported attribute: This object has no argument, nested block, or exported attribute named "nmae" (read as fwtest_latent.a.nmae). Did you mean "name"?`,
		`main.tf:27:11: Unsupported attribute: This object has no argument, nested block, or exported attribute named "nope" (read as fwtest_latent.a.nope). Did you mean "name"?`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
