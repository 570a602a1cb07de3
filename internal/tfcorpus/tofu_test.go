package tfcorpus

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const tofuSample = `{
  "format_version": "1.2",
  "terraform_version": "1.12.6",
  "resource_changes": [
    {
      "address": "terraform_data.b",
      "previous_address": "terraform_data.old",
      "change": {
        "actions": ["update"],
        "after": {"id": "b-1", "input": {"password": "hunter2", "name": "b", "ports": [80, 1.50]}, "output": null, "triggers_replace": null, "secret": null},
        "after_unknown": {"input": {"ports": [false, false]}, "output": true},
        "after_sensitive": {"input": {"password": true}, "secret": true, "token": true}
      }
    },
    {
      "address": "random_pet.p[\"x\"]",
      "deposed": "00000001",
      "change": {"actions": ["delete"], "after": null, "after_unknown": {}, "after_sensitive": false}
    },
    {
      "address": "random_pet.p[\"x\"]",
      "change": {
        "actions": ["create", "delete"],
        "after": {"length": 2, "keepers": {"k": "v"}},
        "after_unknown": {"id": true, "keepers": {}},
        "after_sensitive": {"keepers": {}}
      }
    },
    {
      "address": "fwtest_item.imp",
      "change": {
        "actions": ["no-op"],
        "after": {"id": "web-1", "tags": ["a", null]},
        "after_unknown": {"tags": [false, true]},
        "after_sensitive": {},
        "importing": {"id": "web-1"}
      }
    }
  ],
  "output_changes": {
    "secret": {"actions": ["create"], "after": "s3cret", "after_unknown": false, "after_sensitive": true},
    "id": {"actions": ["create"], "after_unknown": true, "after_sensitive": false},
    "mixed": {"actions": ["update"], "after": {"known": 1e2, "later": null}, "after_unknown": {"later": true}, "after_sensitive": false}
  },
  "errored": false
}`

func TestFromTofu(t *testing.T) {
	got, err := FromTofu([]byte(tofuSample))
	if err != nil {
		t.Fatal(err)
	}
	want := Plan{
		Changes: []Change{
			{Address: "fwtest_item.imp", Actions: []string{"no-op"}, Importing: "web-1",
				After: map[string]any{"id": "web-1", "tags": []any{"a", Unknown}}},
			{Address: `random_pet.p["x"]`, Actions: []string{"create", "delete"},
				After: map[string]any{"id": Unknown, "length": Number("2"), "keepers": map[string]any{"k": "v"}}},
			{Address: `random_pet.p["x"]`, Deposed: true, Actions: []string{"delete"}},
			{Address: "terraform_data.b", PreviousAddress: "terraform_data.old", Actions: []string{"update"},
				After: map[string]any{"id": "b-1", "output": Unknown,
					"input": map[string]any{"password": "hunter2", "name": "b", "ports": []any{Number("80"), Number("1.5")}}},
				Sensitive: []string{".input.password"}},
		},
		Outputs: map[string]Output{
			"secret": {Action: "create", Value: "s3cret", Sensitive: true},
			"id":     {Action: "create", Value: Unknown},
			"mixed":  {Action: "update", Value: map[string]any{"known": Number("100"), "later": Unknown}},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("FromTofu (-want +got):\n%s", diff)
	}
}

func TestFromTofuRefuses(t *testing.T) {
	for name, tc := range map[string]struct{ doc, msg string }{
		"errored":    {`{"format_version": "1.2", "errored": true}`, "the plan errored"},
		"format":     {`{"format_version": "2.0"}`, `format_version "2.0"`},
		"not json":   {`{"format_version": `, "unexpected end"},
		"no actions": {`{"format_version": "1.2", "resource_changes": [{"address": "a.b", "change": {}}]}`, "a.b: no address or no actions"},
		"output actions": {`{"format_version": "1.2", "output_changes": {"o": {"actions": ["delete", "create"]}}}`,
			"output o: actions [delete create], want one"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := FromTofu([]byte(tc.doc))
			if err == nil || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("err = %v, want one saying %q", err, tc.msg)
			}
		})
	}
}

func TestCanonicalNumber(t *testing.T) {
	for in, want := range map[string]Number{
		"1": "1", "1.0": "1", "1e2": "100", "-0.50": "-0.5", "1.5e-3": "0.0015",
		"9007199254740993": "9007199254740993", "0.1": "0.1", "3.3333333333333335": "3.3333333333333335",
	} {
		got, err := canonicalNumber(in)
		if err != nil || got != want {
			t.Errorf("canonicalNumber(%s) = %q, %v; want %q", in, got, err, want)
		}
	}
}
