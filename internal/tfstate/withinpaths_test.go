package tfstate_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/tfstate"
)

// sensitiveAttributes are each managed instance's sensitive_attributes
// in a state's bytes, by address, as written.
func sensitiveAttributes(t *testing.T, data []byte) map[string]string {
	t.Helper()
	var f struct {
		Resources []struct {
			Mode, Type, Name string
			Instances        []struct {
				Sensitive json.RawMessage `json:"sensitive_attributes"`
			}
		}
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, r := range f.Resources {
		for i, in := range r.Instances {
			if r.Mode == "managed" && i == 0 {
				out[r.Type+"."+r.Name] = string(in.Sensitive)
			}
		}
	}
	return out
}

// TestBridgeSensitiveWithin: a path OpenTofu wrote inside an attribute
// makes the attribute secret in parts in Kyku's model, each path as the
// value's type reads it (a map's entry ["key"], an object's attribute
// .name, a list's element [1]); a path that is the attribute makes it
// secret whole; an index Kyku's syntax cannot hold (a key with a quote),
// secret whole too.
func TestBridgeSensitiveWithin(t *testing.T) {
	_, _, st := bridged(t, "testdata/recorded/sensitive.remote.tfstate", tfstate.BridgeOptions{})
	for name, want := range map[string]map[string][]string{
		"null_resource.uses":    {"triggers": {`["token"]`}},
		"terraform_data.nested": {"input": {".list[1]", ".obj.key"}},
		"random_password.pw":    nil,
	} {
		if d := cmp.Diff(want, st.Resources[name].SensitiveWithin); d != "" {
			t.Errorf("%s: (-want +got):\n%s", name, d)
		}
	}
	f, err := tfstate.Decode("x", []byte(instance(`"attributes":{"id":"1","triggers":{"a\"b":"s","c":"t"}},"sensitive_attributes":[`+
		`[{"type":"get_attr","value":"triggers"},{"type":"index","value":{"value":"a\"b","type":"string"}}],`+
		`[{"type":"get_attr","value":"triggers"},{"type":"index","value":{"value":"c","type":"string"}}]]`)))
	if err != nil {
		t.Fatal(err)
	}
	b, err := tfstate.NewBridge(f, tfstate.BridgeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	st = b.State()
	q := st.Resources["null_resource.a"]
	if len(q.SensitiveWithin) != 0 || len(q.Sensitive) != 1 {
		t.Errorf("a key with a quote: sensitive %v within %v, want triggers whole", q.Sensitive, q.SensitiveWithin)
	}
	// Written back with another value beside it, its paths stay as
	// OpenTofu wrote them, although Kyku's model holds them as one.
	q.Outputs["triggers"].(map[string]any)["c"] = "u"
	want := `[[{"type":"get_attr","value":"triggers"},{"type":"index","value":{"value":"a\"b","type":"string"}}],` +
		`[{"type":"get_attr","value":"triggers"},{"type":"index","value":{"value":"c","type":"string"}}]]`
	if got := sensitiveAttributes(t, written(t, b, st, tfstate.Compact))["null_resource.a"]; got != want {
		t.Errorf("sensitive_attributes:\n got %s\nwant %s", got, want)
	}
}

// TestBridgeWritesSensitivePathsAsTofu: the instances of a state OpenTofu
// wrote, added by Kyku to an empty state with the sensitivity of its
// model, are written with the sensitive_attributes OpenTofu wrote: the
// same paths, steps and order.
func TestBridgeWritesSensitivePathsAsTofu(t *testing.T) {
	data, _, st := bridged(t, "testdata/recorded/sensitive.remote.tfstate", tfstate.BridgeOptions{})
	empty, err := tfstate.NewBridge(&tfstate.File{Lineage: st.Metadata.Lineage}, tfstate.BridgeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	next := empty.State()
	for name, r := range st.Resources {
		next.Resources[name] = r.Clone()
	}
	got := written(t, empty, next, tfstate.Compact)
	if d := cmp.Diff(sensitiveAttributes(t, data), sensitiveAttributes(t, got)); d != "" {
		t.Errorf("sensitive_attributes (-tofu +kyku):\n%s", d)
	}
}

// TestBridgeSensitivityChanged: an instance whose sensitivity Kyku changed
// is written with paths for what its model says now, keeping OpenTofu's
// paths of each attribute it says the same of; a state Kyku wrote with a
// whole attribute secret (before it kept paths) reads as secret whole.
func TestBridgeSensitivityChanged(t *testing.T) {
	tests := []struct {
		name   string
		change func(r *state.Resource)
		want   string
	}{
		{"a part more", func(r *state.Resource) {
			r.SensitiveWithin["input"] = []string{".list[0]", ".list[1]", ".obj.key"}
		}, `[[{"type":"get_attr","value":"input"},{"type":"get_attr","value":"list"},{"type":"index","value":{"value":0,"type":"number"}}],` +
			`[{"type":"get_attr","value":"input"},{"type":"get_attr","value":"list"},{"type":"index","value":{"value":1,"type":"number"}}],` +
			`[{"type":"get_attr","value":"input"},{"type":"get_attr","value":"obj"},{"type":"get_attr","value":"key"}]]`},
		{"secret whole", func(r *state.Resource) { delete(r.SensitiveWithin, "input") }, `[[{"type":"get_attr","value":"input"}]]`},
		{"another attribute secret", func(r *state.Resource) {
			r.Sensitive = append(r.Sensitive, "output")
			r.SensitiveWithin["output"] = []string{`["x y"]`}
		}, `[[{"type":"get_attr","value":"input"},{"type":"get_attr","value":"list"},{"type":"index","value":{"value":1,"type":"number"}}],` +
			`[{"type":"get_attr","value":"input"},{"type":"get_attr","value":"obj"},{"type":"get_attr","value":"key"}],` +
			`[{"type":"get_attr","value":"output"},{"type":"index","value":{"value":"x y","type":"string"}}]]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, b, st := bridged(t, "testdata/recorded/sensitive.remote.tfstate", tfstate.BridgeOptions{})
			tt.change(st.Resources["terraform_data.nested"])
			got := sensitiveAttributes(t, written(t, b, st, tfstate.Compact))["terraform_data.nested"]
			if got != tt.want {
				t.Errorf("sensitive_attributes:\n got %s\nwant %s", got, tt.want)
			}
			again, err := tfstate.Decode("again", written(t, b, st, tfstate.Compact))
			if err != nil {
				t.Fatal(err)
			}
			nb, err := tfstate.NewBridge(again, tfstate.BridgeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			r, was := nb.State().Resources["terraform_data.nested"], st.Resources["terraform_data.nested"]
			if d := cmp.Diff([]any{was.Sensitive, was.SensitiveWithin}, []any{r.Sensitive, r.SensitiveWithin}, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("read back (-written +read):\n%s", d)
			}
		})
	}
}
