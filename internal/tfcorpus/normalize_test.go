package tfcorpus

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNormalize(t *testing.T) {
	in := `{"timestamp": "2026-12-06T10:00:00Z", "terraform_version": "1.12.6",
	  "z": {"b": 9007199254740993, "a": 1.50},
	  "paths": ["/tmp/rec/run/e/files", "/tmp/rec/run/e", "/tmp/rec/run/elsewhere", "cd /tmp/rec/run/e; ls"],
	  "/tmp/rec/run/e/key": "<b>&</b>"}`
	want := `{
  "@@WORKDIR@@/key": "<b>&</b>",
  "paths": [
    "@@WORKDIR@@/files",
    "@@WORKDIR@@",
    "/tmp/rec/run/elsewhere",
    "cd @@WORKDIR@@; ls"
  ],
  "terraform_version": "1.12.6",
  "z": {
    "a": 1.50,
    "b": 9007199254740993
  }
}
`
	got, err := Normalize([]byte(in), "/tmp/rec/run/e/")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("Normalize (-want +got):\n%s", diff)
	}
	if _, err := Normalize([]byte(`[1]`), "/x"); err == nil {
		t.Error("Normalize of a JSON array: no error")
	}
	if _, err := Normalize([]byte(`{}`), ""); err == nil {
		t.Error("Normalize without a working directory: no error")
	}
}

// TestNormalizeSortsUnorderedLists: the lists OpenTofu writes in no fixed
// order come out sorted; a list inside a value keeps its order.
func TestNormalizeSortsUnorderedLists(t *testing.T) {
	in := `{
	  "resource_changes": [{"address": "b"}, {"address": "a", "deposed": "1"}, {"address": "a"}],
	  "relevant_attributes": [{"resource": "r", "attribute": []}, {"resource": "r", "attribute": ["z"]}],
	  "planned_values": {"root_module": {
	    "resources": [{"address": "y", "values": {"resources": [2, 1]}}, {"address": "x"}],
	    "child_modules": [{"address": "module.b", "child_modules": [{"address": "module.b.module.d"}, {"address": "module.b.module.c"}]}, {"address": "module.a"}]}},
	  "prior_state": {"values": {"root_module": {"resources": [{"address": "q"}, {"address": "p"}]}}},
	  "configuration": {"root_module": {"resources": [{"address": "n"}, {"address": "m"}]}}
	}`
	want := `{"configuration":{"root_module":{"resources":[{"address":"n"},{"address":"m"}]}},` +
		`"planned_values":{"root_module":{"child_modules":[{"address":"module.a"},{"address":"module.b","child_modules":[{"address":"module.b.module.c"},{"address":"module.b.module.d"}]}],` +
		`"resources":[{"address":"x"},{"address":"y","values":{"resources":[2,1]}}]}},` +
		`"prior_state":{"values":{"root_module":{"resources":[{"address":"p"},{"address":"q"}]}}},` +
		`"relevant_attributes":[{"attribute":["z"],"resource":"r"},{"attribute":[],"resource":"r"}],` +
		`"resource_changes":[{"address":"a"},{"address":"a","deposed":"1"},{"address":"b"}]}`
	got, err := Normalize([]byte(in), "/w")
	if err != nil {
		t.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, compact.String()); diff != "" {
		t.Errorf("Normalize (-want +got):\n%s", diff)
	}
}
