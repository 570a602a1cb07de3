package tfconfig_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kyku/action/internal/tfconfig"
)

// TestEnabledRefusedBeside: lifecycle enabled is refused beside count or
// for_each, on a resource, a data source and a module call, in
// OpenTofu's words at the first of them; a module call's lifecycle takes
// enabled alone. (Corpus entries lifecycle-enabled and error-enabled-*
// hold the rest against OpenTofu; it refuses these before init, which the
// corpus does not record.)
func TestEnabledRefusedBeside(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"main.tf": `resource "terraform_data" "both" {
  count = 1
  lifecycle {
    enabled = true
  }
}
data "terraform_remote_state" "all" {
  for_each = {}
  count    = 1
  backend  = "local"
  lifecycle {
    enabled = true
  }
}
module "each" {
  source   = "./m"
  for_each = toset([])
  lifecycle {
    enabled = true
  }
}
module "other" {
  source = "./m"
  lifecycle {
    create_before_destroy = true
  }
}
`,
		"m/main.tf": "",
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := tfconfig.Load(dir, nil, tfconfig.Inputs{})
	if err == nil {
		t.Fatal("loaded")
	}
	for _, want := range []string{
		`main.tf:2:3: Invalid combination of "count" and "enabled": The "count" and "enabled" meta-arguments are mutually-exclusive. Only one may be used to be explicit about the number of resources to be created.`,
		`main.tf:8:3: Invalid combination of "count", "enabled", and "for_each": The "count", "enabled", and "for_each" meta-arguments are mutually-exclusive. Only one may be used to be explicit about the number of data sources to be created.`,
		`main.tf:17:3: Invalid combination of "enabled" and "for_each": The "enabled" and "for_each" meta-arguments are mutually-exclusive. Only one should be used to be explicit about the number of module instances to be created.`,
		`main.tf:25:5: Unsupported argument`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing %s\nin:\n%v", want, err)
		}
	}
}

// TestEnabledNotEvaluatedByValidate: kyku validate (no variables given)
// checks a resource's body whatever its lifecycle enabled says, and not
// enabled itself, as tofu validate does (it refuses count = null, and
// says nothing of enabled = null).
func TestEnabledNotEvaluatedByValidate(t *testing.T) {
	m, _ := loadDir(t, map[string]string{"main.tf": `resource "terraform_data" "b" {
  lifecycle {
    enabled = null
  }
  input = nope.x
}
`})
	_, err := tfconfig.Expand(m, tfconfig.Inputs{Validating: true})
	if err == nil || !strings.Contains(err.Error(), "Reference to undeclared resource") || strings.Contains(err.Error(), "Invalid enabled argument") {
		t.Errorf("validate: %v; want the body's error alone", err)
	}
}
