package tfconfig_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/tfconfig"
)

const terraformData = `
variable "rev" {
  default = "v1"
}

variable "greeting" {
  default = "hello"
}

resource "terraform_data" "a" {
  input = var.greeting
}

resource "terraform_data" "b" {
  input            = { from_a = terraform_data.a.output }
  triggers_replace = [var.rev]
}

output "b" {
  value = terraform_data.b.output
}
`

// TestTerraformDataThroughTheEngine: terraform_data, served in process,
// is planned, applied and planned again as OpenTofu does: output is
// input once applied, id a UUID from the injected source; a plan after
// apply changes nothing; a changed input updates it (output unknown,
// and what reads it updated too); a changed triggers_replace replaces it.
func TestTerraformDataThroughTheEngine(t *testing.T) {
	w := newWorld(t, tfplugintestSDK)
	w.write(map[string]string{"main.tf": terraformData})
	cfg := w.mustLoad(tfconfig.Inputs{})
	if len(cfg.Providers) != 0 {
		t.Fatalf("providers to install: %+v, want none (the built-in provider is served in process)", cfg.Providers[0])
	}
	p := w.plan(cfg)
	if diff := cmp.Diff([]string{"terraform_data.a create", "terraform_data.b create"}, actions(p)); diff != "" {
		t.Fatalf("first plan (-want +got):\n%s", diff)
	}
	res := w.apply(cfg)
	if diff := cmp.Diff(map[string]any{"b": map[string]any{"from_a": "hello"}}, res.Outputs); diff != "" {
		t.Errorf("outputs (-want +got):\n%s", diff)
	}
	st := w.readState()
	a := st.Resources["terraform_data.a"]
	if a == nil {
		t.Fatalf("state has %v", st.Names())
	}
	wantA := map[string]any{"id": "00000000-0000-0000-0000-000000000001", "input": "hello", "output": "hello"}
	if diff := cmp.Diff(wantA, a.Outputs); diff != "" || a.ProviderID != wantA["id"] {
		t.Errorf("terraform_data.a in state, ID %q (-want +got):\n%s", a.ProviderID, diff)
	}

	if again := w.plan(w.mustLoad(tfconfig.Inputs{})); again.HasChanges() {
		t.Errorf("plan after apply has changes: %v", actions(again))
	}

	changed := w.mustLoad(tfconfig.Inputs{Vars: []tfconfig.VarArg{{Name: "greeting", Value: "hi"}}})
	p = w.plan(changed)
	if diff := cmp.Diff([]string{"terraform_data.a update", "terraform_data.b update"}, actions(p)); diff != "" {
		t.Errorf("plan of a changed input (-want +got):\n%s", diff)
	}
	if c := change(p, "terraform_data.a"); c == nil || c.Planned == nil || c.Planned.Values["output"] != "(known after apply)" || c.Planned.Values["id"] != wantA["id"] {
		t.Errorf("terraform_data.a's plan: %+v, want output unknown and id kept", c)
	}

	replaced := w.mustLoad(tfconfig.Inputs{Vars: []tfconfig.VarArg{{Name: "rev", Value: "v2"}}})
	p = w.plan(replaced)
	if diff := cmp.Diff([]string{"terraform_data.a no-op", "terraform_data.b replace"}, actions(p)); diff != "" {
		t.Errorf("plan of a changed triggers_replace (-want +got):\n%s", diff)
	}
	w.apply(replaced)
	b := w.readState().Resources["terraform_data.b"]
	if b == nil || b.ProviderID != "00000000-0000-0000-0000-000000000003" {
		t.Errorf("terraform_data.b after its replace: %+v, want the third ID", b)
	}
	if again := w.plan(w.mustLoad(tfconfig.Inputs{Vars: []tfconfig.VarArg{{Name: "rev", Value: "v2"}}})); again.HasChanges() {
		t.Errorf("plan after the replace has changes: %v", actions(again))
	}
}

// TestTerraformDataImport: an import block of terraform_data finds an
// object holding only the ID given (OpenTofu's rule); its plan sets
// input from the configuration, output known after apply, and the apply
// keeps the ID.
func TestTerraformDataImport(t *testing.T) {
	w := newWorld(t, tfplugintestSDK)
	w.write(map[string]string{"main.tf": `
import {
  to = terraform_data.x
  id = "given-id"
}

resource "terraform_data" "x" {
  input = "a"
}
`})
	cfg := w.mustLoad(tfconfig.Inputs{})
	p := w.plan(cfg)
	c := change(p, "terraform_data.x")
	if c == nil {
		t.Fatalf("plan: %v", actions(p))
	}
	if c.ProviderID != "given-id" || c.Planned == nil || c.Planned.Values["input"] != "a" || c.Planned.Values["output"] != "(known after apply)" || c.Planned.Values["id"] != "given-id" {
		t.Errorf("the import's change: %s %q, planned %+v", c.Action, c.ProviderID, c.Planned)
	}
	w.apply(cfg)
	x := w.readState().Resources["terraform_data.x"]
	want := map[string]any{"id": "given-id", "input": "a", "output": "a"}
	if x == nil || x.ProviderID != "given-id" || !cmp.Equal(want, x.Outputs) {
		t.Errorf("terraform_data.x in state: %+v, want %v", x, want)
	}
	if again := w.plan(w.mustLoad(tfconfig.Inputs{})); again.HasChanges() {
		t.Errorf("plan after the import's apply has changes: %v", actions(again))
	}
}

// TestTerraformDataRefusals: what OpenTofu refuses of terraform_data's
// configuration is refused at its position.
func TestTerraformDataRefusals(t *testing.T) {
	w := newWorld(t, tfplugintestSDK)
	w.write(map[string]string{"main.tf": `resource "terraform_data" "x" {
  input  = "a"
  output = "b"
}

resource "terraform_data" "y" {
  inputs = "a"
}
`})
	cfg := w.mustLoad(tfconfig.Inputs{})
	_, err := w.engine(cfg).Plan(t.Context(), cfg)
	if err == nil {
		t.Fatal("plan: no error")
	}
	for _, want := range []string{`main.tf:3:`, `"output" attribute is read-only`, `main.tf:7:`, `Unsupported argument: An argument named "inputs" is not expected here. Did you mean "input"?`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("plan's error lacks %q:\n%v", want, err)
		}
	}
}
