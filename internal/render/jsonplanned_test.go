package render

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/value"
)

// TestPlanJSONPlannedValues: plan --json carries each change's whole
// planned object (what only apply will tell as the marker, a string that
// interpolates it too; sensitive values masked, their paths listed), none
// for a destroy, and lists the unchanged outputs as no-ops among the
// output changes, by name, never a secret in clear.
func TestPlanJSONPlannedValues(t *testing.T) {
	web := change(plan.Create, "random_pet", "random_pet.web", 0)
	web.Sensitive = []string{"keepers"}
	web.Planned = &plan.Planned{Sensitive: []string{"result", "absent"}, Values: map[string]any{
		"id": value.Unknown, "length": 2.0, "prefix": "web-" + value.Unknown,
		"keepers": map[string]any{"pw": "hunter2-secret"}, "result": "hunter3-secret",
		"tags": map[string]any{"my key": "v"}, "absent": nil,
	}}
	gone := change(plan.Destroy, "random_pet", "random_pet.old", 0)
	gone.Planned = &plan.Planned{Values: map[string]any{"id": "old-pet"}}
	p := newPlan("default", web, gone)
	p.OutputChanges = []plan.OutputChange{{Name: "b", Action: plan.Create, New: value.Unknown, Unknown: true}}
	p.UnchangedOutputs = []plan.OutputChange{
		{Name: "a", Action: plan.NoOp, Old: "x", New: "x"},
		{Name: "c", Action: plan.NoOp, Old: plan.Masked, New: plan.Masked, Sensitive: true},
	}

	var js bytes.Buffer
	if err := PlanJSON(&js, p, JSONOptions{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(js.String(), "-secret") {
		t.Fatalf("plan --json shows a secret:\n%s", js.String())
	}
	var got struct {
		Changes []struct {
			ResourceID     string   `json:"resourceId"`
			Planned        any      `json:"planned"`
			SensitivePaths []string `json:"sensitivePaths"`
		} `json:"changes"`
		OutputChanges []struct {
			Name, Action string
			New          any
		} `json:"outputChanges"`
	}
	if err := json.Unmarshal(js.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Changes) != 2 {
		t.Fatalf("changes %+v", got.Changes)
	}
	wantPlanned := map[string]any{
		"id": value.Unknown, "length": 2.0, "prefix": value.Unknown,
		"keepers": plan.Masked, "result": plan.Masked, "tags": map[string]any{"my key": "v"}, "absent": nil,
	}
	if diff := cmp.Diff(wantPlanned, got.Changes[0].Planned); diff != "" {
		t.Errorf("planned (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{".keepers", ".result"}, got.Changes[0].SensitivePaths); diff != "" {
		t.Errorf("sensitivePaths (-want +got):\n%s", diff)
	}
	if got.Changes[1].Planned != nil {
		t.Errorf("a destroy's planned value %v, want none", got.Changes[1].Planned)
	}
	wantOutputs := []struct {
		Name, Action string
		New          any
	}{{"a", "no-op", "x"}, {"b", "create", value.Unknown}, {"c", "no-op", plan.Masked}}
	if diff := cmp.Diff(wantOutputs, got.OutputChanges); diff != "" {
		t.Errorf("outputChanges (-want +got):\n%s", diff)
	}
}

func TestAttrPath(t *testing.T) {
	for name, want := range map[string]string{"tags": ".tags", "my key": `["my key"]`, "9lives": `["9lives"]`, "": `[""]`} {
		if got := attrPath(name); got != want {
			t.Errorf("attrPath(%q) = %q, want %q", name, got, want)
		}
	}
}
