package tfstate_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/tfstate"
)

// minimal wraps resources (JSON) in an otherwise valid state.
func minimal(resources string) string {
	return `{"version":4,"terraform_version":"1.12.6","serial":1,"lineage":"l","outputs":{},"resources":[` + resources + `],"check_results":null}`
}

func instance(fields string) string {
	return minimal(`{"mode":"managed","type":"null_resource","name":"a","provider":"p","instances":[{` + fields + `}]}`)
}

// TestDecodeErrors: what Decode refuses, and that its error names the file
// and the field (with line and column where the JSON decoder stopped), and
// says what it wanted.
func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name, data, want string
		is               error
	}{
		{"empty", ``, `s.tfstate: empty state file`, tfstate.ErrEmpty},
		{"not json", "{\n  \"version\": 4,\n  oops", `s.tfstate:3:3: state is corrupt: not valid JSON: invalid character 'o' looking for beginning of object key string`, state.ErrCorrupt},
		{"no version", `{"serial":1}`, `s.tfstate: state is corrupt: no "version": not a Terraform state`, state.ErrCorrupt},
		{"kyku state", `{"metadata":{"version":1},"resources":{}}`, `s.tfstate: state is corrupt: this is a kyku state, not a Terraform state (no "version")`, state.ErrCorrupt},
		{"encrypted", `{"meta":{"key_provider.pbkdf2.k":"e30="},"encrypted_data":"AAAA","encryption_version":"v0"}`,
			`s.tfstate: state is encrypted with OpenTofu's state encryption, which kyku does not read; decrypt it with tofu (state encryption's fallback) first`, tfstate.ErrEncrypted},
		{"version 3", `{"version":3,"terraform_version":"0.11.14","serial":1}`,
			`s.tfstate: unsupported state version: format version 3, written by Terraform 0.11.14; kyku reads version 4: let tofu rewrite it first (tofu apply -refresh-only)`, state.ErrUnsupportedVersion},
		{"version 5", `{"version":5}`, `s.tfstate: unsupported state version: format version 5, written by an unknown version; kyku reads version 4, as OpenTofu 1.12 writes it`, state.ErrUnsupportedVersion},
		{"serial a string", "{\"version\":4,\n\"serial\":\"7\"}", `s.tfstate:2:12: state is corrupt: serial: want a whole number of 0 or more, found string`, state.ErrCorrupt},
		{"schema_version negative", instance(`"schema_version":-1`), `s.tfstate:1:193: state is corrupt: resources.instances.schema_version: want a whole number of 0 or more, found number -1`, state.ErrCorrupt},
		{"bad terraform_version", `{"version":4,"terraform_version":"one"}`, `s.tfstate: state is corrupt: terraform_version "one" is not a version`, state.ErrCorrupt},
		{"bad mode", minimal(`{"mode":"ephemeral","type":"t","name":"n","provider":"p","instances":[]}`), `s.tfstate: state is corrupt: resources[0]: mode "ephemeral" of t.n is neither managed nor data`, state.ErrCorrupt},
		{"bad module", minimal(`{"module":"module.a.b","mode":"managed","type":"t","name":"n","provider":"p","instances":[]}`), `s.tfstate: state is corrupt: resources[0]: module: "module.a.b" is not a module address (module.NAME[KEY]…)`, state.ErrCorrupt},
		{"twice", minimal(`{"mode":"managed","type":"t","name":"n","provider":"p","instances":[]},{"mode":"managed","type":"t","name":"n","provider":"p","instances":[]}`), `s.tfstate: state is corrupt: resources[1]: t.n appears twice`, state.ErrCorrupt},
		{"instance twice", minimal(`{"mode":"managed","type":"t","name":"n","provider":"p","instances":[{"index_key":1},{"index_key":1}]}`), `s.tfstate: state is corrupt: resources[0]: t.n: instances[1]: t.n[1] appears twice`, state.ErrCorrupt},
		{"instance twice among many", minimal(`{"mode":"managed","type":"t","name":"n","provider":"p","instances":[` + manyInstances(20) + `,{"index_key":"k7"}]}`), `s.tfstate: state is corrupt: resources[0]: t.n: instances[20]: t.n["k7"] appears twice`, state.ErrCorrupt},
		{"deposed twice", minimal(`{"mode":"managed","type":"t","name":"n","provider":"p","instances":[{"index_key":1},{"index_key":1,"deposed":"00000001"},{"index_key":1,"deposed":"00000001"}]}`), `s.tfstate: state is corrupt: resources[0]: t.n: instances[2]: t.n[1] deposed object 00000001 appears twice`, state.ErrCorrupt},
		{"no provider", minimal(`{"mode":"managed","type":"t","name":"n","instances":[{}]}`), `s.tfstate: state is corrupt: resources[0]: t.n: instances[0]: no provider, on the resource or the instance`, state.ErrCorrupt},
		{"float key", instance(`"index_key":1.5`), `s.tfstate: state is corrupt: resources[0]: null_resource.a: instances[0]: index_key 1.5: want a whole number of 0 or more, or a string`, state.ErrCorrupt},
		{"bool key", instance(`"index_key":true`), `s.tfstate: state is corrupt: resources[0]: null_resource.a: instances[0]: index_key true: want a whole number of 0 or more, or a string`, state.ErrCorrupt},
		{"status", instance(`"status":"gone"`), `s.tfstate: state is corrupt: resources[0]: null_resource.a: instances[0]: status "gone": want "tainted" or none`, state.ErrCorrupt},
		{"deposed", instance(`"deposed":"abc"`), `s.tfstate: state is corrupt: resources[0]: null_resource.a: instances[0]: deposed "abc": want a key of 8 characters`, state.ErrCorrupt},
		{"attributes", instance(`"attributes":[1]`), `s.tfstate: state is corrupt: resources[0]: null_resource.a: instances[0]: attributes: want an object`, state.ErrCorrupt},
		{"private", instance(`"private":"!!"`), `s.tfstate: state is corrupt: resources[0]: null_resource.a: instances[0]: private: not base64: illegal base64 data at input byte 0`, state.ErrCorrupt},
		{"sensitive step", instance(`"sensitive_attributes":[[{"type":"splat","value":1}]]`), `s.tfstate: state is corrupt: resources[0]: null_resource.a: instances[0]: sensitive_attributes: path 0 step 0: unknown step type "splat" (get_attr or index)`, state.ErrCorrupt},
		{"sensitive shape", instance(`"sensitive_attributes":{"a":1}`), `s.tfstate: state is corrupt: resources[0]: null_resource.a: instances[0]: sensitive_attributes: want a list of paths, each a list of {"type", "value"} steps: want a list, found object`, state.ErrCorrupt},
		{"output type", `{"version":4,"outputs":{"o":{"value":"x","type":"strung"}}}`, `s.tfstate: state is corrupt: outputs.o: type: invalid primitive type name "strung"`, state.ErrCorrupt},
		{"output value", `{"version":4,"outputs":{"o":{"value":"x","type":"number"}}}`, `s.tfstate: state is corrupt: outputs.o: value: a number is required`, state.ErrCorrupt},
		{"output number too long", `{"version":4,"outputs":{"o":{"value":1e99999999,"type":"number"}}}`, `s.tfstate: state is corrupt: outputs.o: value: number 1e99999999 is out of range`, state.ErrCorrupt},
		{"index number too small", instance(`"sensitive_attributes":[[{"type":"index","value":{"value":-1E-1001,"type":"number"}}]]`), `s.tfstate: state is corrupt: resources[0]: null_resource.a: instances[0]: sensitive_attributes: path 0 step 0: number -1E-1001 is out of range`, state.ErrCorrupt},
		{"output without value", `{"version":4,"outputs":{"o":{"type":"number"}}}`, `s.tfstate: state is corrupt: outputs.o: no value`, state.ErrCorrupt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tfstate.Decode("s.tfstate", []byte(tt.data))
			if err == nil {
				t.Fatal("decoded")
			}
			if d := cmp.Diff(tt.want, err.Error()); d != "" {
				t.Errorf("error (-want +got):\n%s", d)
			}
			if !errors.Is(err, tt.is) {
				t.Errorf("error does not wrap %v", tt.is)
			}
			if strings.Contains(err.Error(), "tfstate.wire") || strings.Contains(err.Error(), "uint64") {
				t.Errorf("error names a Go type: %v", err)
			}
		})
	}
}

// TestDecodeKeepsEverything: each field of a hand-written state is where
// the model says.
func TestDecodeKeepsEverything(t *testing.T) {
	f, err := tfstate.Decode("fields", read(t, "testdata/handmade/fields.in.tfstate"))
	if err != nil {
		t.Fatal(err)
	}
	var x *tfstate.Resource
	for _, r := range f.Resources {
		if r.Addr() == `module.m["k"].null_resource.x` {
			x = r
		}
	}
	if x == nil {
		t.Fatal(`no module.m["k"].null_resource.x`)
	}
	three := uint64(3)
	want := []*tfstate.Instance{
		{
			Key: tfstate.String("k1"), Status: "tainted", SchemaVersion: 2,
			Attributes:   []byte(`{"id":"1","triggers":{"a":"b"}}`),
			Sensitive:    []tfstate.Path{{{Attr: "triggers"}, {Index: []byte(`{"value":"a","type":"string"}`)}}},
			Dependencies: []string{"aws_vpc.main", "module.net.aws_subnet.private"}, CreateBeforeDestroy: true,
			Identity: []byte(`{"id":"1","region":"eu-west-1"}`), IdentitySchemaVersion: &three,
		},
		{Key: tfstate.String("k1"), Deposed: "00aa11bb", SchemaVersion: 2, AttributesFlat: map[string]string{"%": "0", "id": "0"}},
		{Key: tfstate.String("k2"), Attributes: []byte(`{"id":"2","triggers":null}`), Private: []byte(`{"schema_version":"1"}`), SkipDestroy: true},
	}
	if d := cmp.Diff(want, x.Instances); d != "" {
		t.Errorf("instances (-want +got):\n%s", d)
	}
	if got := f.Outputs["a"]; !got.Sensitive || got.Deprecated != "use b" || string(got.Value) != `"\u003c\u0026\u003e"` {
		t.Errorf("output a: %+v", got)
	}
	if len(f.CheckResults) != 2 || f.CheckResults[1].Objects[0].FailureMessages[0] != "x < y" {
		t.Errorf("check results: %+v", f.CheckResults)
	}
}

// manyInstances are n instances keyed "k0" to "kN-1", as JSON list elements.
func manyInstances(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"index_key":"k%d"}`, i)
	}
	return b.String()
}
