package tfcorpus

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// kykuSample is shaped as render.PlanJSON writes `kyku plan --json`.
const kykuSample = `{
  "formatVersion": 1,
  "environment": "default",
  "changes": [
    {"action": "create", "resourceId": "module.net.fwtest_item.subnet[\"a\"]", "type": "fwtest_item", "level": 0,
     "properties": [
       {"path": "name", "old": null, "new": "a"},
       {"path": "id", "old": null, "new": "(known after apply)", "unknown": true},
       {"path": "secret", "old": null, "new": "(sensitive)", "sensitive": true},
       {"path": "tags.env", "old": null, "new": "prod"},
       {"path": "rule[1].port", "old": null, "new": 443.0},
       {"path": "rule[0].port", "old": null, "new": 80},
       {"path": "value", "old": null, "new": null}
     ]},
    {"action": "replace", "resourceId": "random_pet.a", "type": "random_pet", "level": 0, "replaceOrder": "create-before-destroy",
     "properties": [{"path": "id", "old": "x", "new": "(known after apply)", "unknown": true}]},
    {"action": "replace", "resourceId": "random_pet.b", "type": "random_pet", "level": 0, "replaceOrder": "destroy-before-create", "properties": []},
    {"action": "destroy", "resourceId": "random_pet.a~deposed", "type": "random_pet", "level": 0,
     "properties": [{"path": "id", "old": "x", "new": null}]},
    {"action": "move", "resourceId": "terraform_data.new", "movedFrom": "terraform_data.old", "type": "terraform_data", "level": 0,
     "planned": {"id": "1", "input": {"a": [1, "(known after apply)"], "s": "(sensitive)"}, "output": null},
     "sensitivePaths": [".input.s"]},
    {"action": "import", "resourceId": "fwtest_item.imp", "providerId": "web-1", "type": "fwtest_item", "level": 0, "properties": []},
    {"action": "import", "resourceId": "fwtest_item.imp3", "providerId": "c-3", "importId": "c-3", "type": "fwtest_item", "level": 0,
     "properties": [{"path": "value", "old": "old", "new": "v1"}]},
    {"action": "update", "resourceId": "fwtest_item.imp2", "providerId": "db-2", "importId": "db", "type": "fwtest_item", "level": 0, "properties": []},
    {"action": "read", "resourceId": "data.fwtest_item.later", "type": "fwtest_item", "level": 1, "properties": []},
    {"action": "forget", "resourceId": "terraform_data.gone", "type": "terraform_data", "level": 0, "properties": []}
  ],
  "outputChanges": [
    {"name": "id", "action": "create", "old": null, "new": "(known after apply)", "unknown": true},
    {"name": "pw", "action": "create", "old": null, "new": "(sensitive)", "sensitive": true},
    {"name": "gone", "action": "destroy", "old": "x", "new": null},
    {"name": "obj", "action": "update", "old": null, "new": {"n": 2.50, "u": "(known after apply)"}, "unknown": true}
  ],
  "counters": {"create": 1}
}`

func TestFromKyku(t *testing.T) {
	got, err := FromKyku([]byte(kykuSample))
	if err != nil {
		t.Fatal(err)
	}
	want := Plan{
		Changes: []Change{
			{Address: "data.fwtest_item.later", Actions: []string{"read"}, After: map[string]any{}},
			{Address: "fwtest_item.imp", Actions: []string{"no-op"}, Importing: "web-1", After: map[string]any{}},
			{Address: "fwtest_item.imp2", Actions: []string{"update"}, Importing: "db", After: map[string]any{}},
			{Address: "fwtest_item.imp3", Actions: []string{"update"}, Importing: "c-3", After: map[string]any{"value": "v1"}},
			{Address: `module.net.fwtest_item.subnet["a"]`, Actions: []string{"create"},
				After: map[string]any{"name": "a", "id": Unknown, "secret": Masked, "tags": map[string]any{"env": "prod"},
					"rule": []any{map[string]any{"port": Number("80")}, map[string]any{"port": Number("443")}}},
				Sensitive: []string{".secret"}},
			{Address: "random_pet.a", Actions: []string{"create", "delete"}, After: map[string]any{"id": Unknown}},
			{Address: "random_pet.a", Deposed: true, Actions: []string{"delete"}},
			{Address: "random_pet.b", Actions: []string{"delete", "create"}, After: map[string]any{}},
			{Address: "terraform_data.gone", Actions: []string{"forget"}},
			{Address: "terraform_data.new", PreviousAddress: "terraform_data.old", Actions: []string{"no-op"},
				After:     map[string]any{"id": "1", "input": map[string]any{"a": []any{Number("1"), Unknown}, "s": Masked}},
				Sensitive: []string{".input.s"}},
		},
		Outputs: map[string]Output{
			"id":   {Action: "create", Value: Unknown},
			"pw":   {Action: "create", Value: Masked, Sensitive: true},
			"gone": {Action: "delete"},
			"obj":  {Action: "update", Value: map[string]any{"n": Number("2.5"), "u": Unknown}},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("FromKyku (-want +got):\n%s", diff)
	}
}

// TestKykuMatchesTofu: the same plan written by each side compares equal,
// Kyku's masked secret included.
func TestKykuMatchesTofu(t *testing.T) {
	tofu, err := FromTofu([]byte(`{"format_version": "1.2", "resource_changes": [{"address": "random_password.p",
	  "change": {"actions": ["create"], "after": {"length": 8, "special": true, "keepers": null},
	  "after_unknown": {"id": true, "result": true}, "after_sensitive": {"result": true}}}],
	  "output_changes": {"p": {"actions": ["create"], "after_unknown": true, "after_sensitive": true}}}`))
	if err != nil {
		t.Fatal(err)
	}
	kyku, err := FromKyku([]byte(`{"changes": [{"action": "create", "resourceId": "random_password.p", "properties": [
	  {"path": "id", "new": "(known after apply)", "unknown": true}, {"path": "length", "new": 8},
	  {"path": "result", "new": "(sensitive)", "sensitive": true, "unknown": true}, {"path": "special", "new": true}]}],
	  "outputChanges": [{"name": "p", "action": "create", "new": "(sensitive)", "sensitive": true, "unknown": true}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if diffs := Compare(tofu, kyku); len(diffs) > 0 {
		t.Errorf("Compare: %s", strings.Join(diffs, "\n"))
	}
}

func TestFromKykuRefuses(t *testing.T) {
	for name, tc := range map[string]struct{ doc, msg string }{
		"action":        {`{"changes": [{"action": "explode", "resourceId": "a.b"}]}`, `a.b: action "explode"`},
		"path":          {`{"changes": [{"action": "create", "resourceId": "a.b", "properties": [{"path": "x[y]", "new": 1}]}]}`, `property path "x[y]"`},
		"output action": {`{"outputChanges": [{"name": "o", "action": "move"}]}`, `output o: action "move"`},
		"not json":      {`{"changes": `, "unexpected EOF"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := FromKyku([]byte(tc.doc))
			if err == nil || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("err = %v, want one saying %q", err, tc.msg)
			}
		})
	}
}
