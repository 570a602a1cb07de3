package tfstate

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestBridgeKeepsNoSecondCopyOfAttributes: the bridge keeps, of a
// Terraform provider's object it hands out, no copy of its attributes of
// its own (a plan of 5,000 objects kept a second copy of each, a quarter
// of its live heap); a later State and a write parse them again from the
// state's bytes, as they were before the caller changed them.
func TestBridgeKeepsNoSecondCopyOfAttributes(t *testing.T) {
	const name = `null_resource.node[0]`
	f, err := Decode("terraform.tfstate", []byte(`{"version":4,"terraform_version":"1.12.6","serial":1,"lineage":"l","outputs":{},"resources":[
		{"mode":"managed","type":"null_resource","name":"node","provider":"provider[\"registry.opentofu.org/hashicorp/null\"]","instances":[
			{"index_key":0,"schema_version":0,"attributes":{"id":"42","triggers":{"name":"a"}},"sensitive_attributes":[]}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewBridge(f, BridgeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if g := b.given[name]; g == nil || g.Outputs != nil {
		t.Fatalf("kept %+v, want the object without its attributes", g)
	}
	want := map[string]any{"id": "42", "triggers": map[string]any{"name": "a"}}
	handed := b.State()
	handed.Resources[name].Outputs["triggers"].(map[string]any)["name"] = "changed"
	if d := cmp.Diff(want, b.State().Resources[name].Outputs); d != "" {
		t.Errorf("a later State's attributes (-want +got):\n%s", d)
	}
	out, _, err := b.File(b.State())
	if err != nil {
		t.Fatal(err)
	}
	if got := out.Resources[0].Instances[0]; got != f.Resources[0].Instances[0] {
		t.Errorf("an unchanged object written anew: %+v", got)
	}
}
