package tfstate_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/tfstate"
)

// terraformDataState is a state OpenTofu 1.12 wrote for terraform_data,
// whose input, output and triggers_replace are of any type.
const terraformDataState = `{"version":4,"terraform_version":"1.12.6","serial":1,"lineage":"l","outputs":{},"resources":[
{"mode":"managed","type":"terraform_data","name":"d","provider":"provider[\"terraform.io/builtin/terraform\"]","instances":[
{"schema_version":0,"attributes":{"id":"u-1","input":{"value":{"size":"small","n":[1,2]},"type":["object",{"size":"string","n":["tuple",["number","number"]]}]},"output":{"value":{"size":"small","n":[1,2]},"type":["object",{"size":"string","n":["tuple",["number","number"]]}]},"triggers_replace":null},"sensitive_attributes":[]}]}],"check_results":null}
`

// TestBridgeTerraformData: terraform_data's attributes of any type are
// their values in Kyku's state, and written back as OpenTofu writes
// them ({"value": …, "type": …}), so OpenTofu reads what Kyku wrote.
func TestBridgeTerraformData(t *testing.T) {
	f, err := tfstate.Decode("terraform_data", []byte(terraformDataState))
	if err != nil {
		t.Fatal(err)
	}
	b, err := tfstate.NewBridge(f, tfstate.BridgeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	st := b.State()
	obj := map[string]any{"size": "small", "n": []any{1.0, 2.0}}
	want := map[string]any{"id": "u-1", "input": obj, "output": obj}
	if diff := cmp.Diff(want, st.Resources["terraform_data.d"].Outputs); diff != "" {
		t.Fatalf("Kyku's state (-want +got):\n%s", diff)
	}
	st.Resources["terraform_data.d"].Outputs = map[string]any{"id": "u-1", "input": "hi", "output": "hi", "triggers_replace": []any{"v2", true}}
	out, _, err := b.File(st)
	if err != nil {
		t.Fatal(err)
	}
	data, err := tfstate.Encode(out, tfstate.Compact)
	if err != nil {
		t.Fatal(err)
	}
	// each value before its type, as OpenTofu writes them (cty's order)
	wantAttrs := `"attributes":{"id":"u-1","input":{"value":"hi","type":"string"},"output":{"value":"hi","type":"string"},"triggers_replace":{"value":["v2",true],"type":["tuple",["string","bool"]]}}`
	if !strings.Contains(string(data), wantAttrs) {
		t.Errorf("no %s in\n%s", wantAttrs, data)
	}
	again, err := tfstate.Decode("again", data)
	if err != nil {
		t.Fatal(err)
	}
	b2, err := tfstate.NewBridge(again, tfstate.BridgeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(st.Resources["terraform_data.d"].Outputs, b2.State().Resources["terraform_data.d"].Outputs); diff != "" {
		t.Errorf("read back (-wrote +read):\n%s", diff)
	}
}

// TestBridgeWritesUnsetAttributes: a new instance of a provider's type is
// written with every attribute and block its schema has (Empties), each
// unset one null (or an empty list of blocks), as OpenTofu writes it;
// Kyku's model leaves them out. Without Empties (the provider not
// started), as the model holds them.
func TestBridgeWritesUnsetAttributes(t *testing.T) {
	f, err := tfstate.Decode("empty", []byte(`{"version":4,"terraform_version":"1.12.6","serial":1,"lineage":"l","outputs":{},"resources":[],"check_results":null}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		empties func(string) map[string]any
		want    string
	}{
		{"with the schema", func(typ string) map[string]any {
			if typ != "random_pet" {
				return nil
			}
			return map[string]any{"id": nil, "keepers": nil, "length": nil, "prefix": nil, "separator": nil, "rules": []any{}}
		}, `"attributes":{"id":"p-1","keepers":null,"length":2,"prefix":null,"rules":[],"separator":"-"}`},
		{"without", nil, `"attributes":{"id":"p-1","length":2,"separator":"-"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := tfstate.NewBridge(f, tfstate.BridgeOptions{Empties: tc.empties})
			if err != nil {
				t.Fatal(err)
			}
			st := b.State()
			st.Resources["random_pet.p"] = &state.Resource{Name: "random_pet.p", Type: "random_pet", ProviderID: "p-1",
				Outputs: map[string]any{"id": "p-1", "length": 2.0, "separator": "-"}}
			out, _, err := b.File(st)
			if err != nil {
				t.Fatal(err)
			}
			data, err := tfstate.Encode(out, tfstate.Compact)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(data), tc.want) {
				t.Errorf("no %s in\n%s", tc.want, data)
			}
		})
	}
}
