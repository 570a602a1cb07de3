package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kyku/action/internal/plan"
)

var errTest = errors.New("test failure")

func planJSON(t *testing.T, p *plan.Plan, opts JSONOptions) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := PlanJSON(&b, p, opts); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestPlanJSONGolden(t *testing.T) {
	golden(t, "plan.json.golden", string(planJSON(t, fullPlan(), JSONOptions{})))
	golden(t, "plan_create_before_destroy.json.golden", string(planJSON(t, cbdPlan(), JSONOptions{})))
}

// What a jq user relies on: the seed's fields, the counters, no-op
// filtering, sensitive values masked.
func TestPlanJSONFields(t *testing.T) {
	var got struct {
		Environment string `json:"environment"`
		Lineage     string `json:"lineage"`
		Serial      int64  `json:"serial"`
		ConfigHash  string `json:"configHash"`
		HasChanges  bool   `json:"hasChanges"`
		Changes     []struct {
			Action     string `json:"action"`
			ResourceID string `json:"resourceId"`
			Level      int    `json:"level"`
			Properties []struct {
				Path string `json:"path"`
				Old  any    `json:"old"`
				New  any    `json:"new"`
			} `json:"properties"`
		} `json:"changes"`
		Counters map[string]int `json:"counters"`
	}
	b := planJSON(t, fullPlan(), JSONOptions{OmitNoOp: true})
	if b[len(b)-1] != '\n' {
		t.Error("no trailing newline")
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.Environment != "prod" || got.Lineage != "4f1c2a9e-lineage" || got.Serial != 7 || got.ConfigHash != "c0ffee" || !got.HasChanges {
		t.Errorf("header fields wrong: %+v", got)
	}
	wantCounters := map[string]int{"create": 3, "update": 1, "replace": 1, "destroy": 1, "noop": 1, "forget": 1}
	if diff := cmp.Diff(wantCounters, got.Counters); diff != "" {
		t.Errorf("counters (-want +got):\n%s", diff)
	}
	var actions []string
	for _, c := range got.Changes {
		actions = append(actions, c.Action+" "+c.ResourceID)
	}
	wantActions := []string{"create main-vpc", "create web-sg", "replace web", "create batch", "update web-lb", "destroy old-worker", "forget old-key"}
	if diff := cmp.Diff(wantActions, actions); diff != "" {
		t.Errorf("changes with OmitNoOp (-want +got):\n%s", diff)
	}
	userData := got.Changes[2].Properties[1]
	if userData.Path != "userData" || userData.Old != plan.Masked || userData.New != plan.Masked {
		t.Errorf("sensitive property not masked: %+v", userData)
	}
}

func TestRedactPlan(t *testing.T) {
	p := withConfig(fullPlan())
	r := RedactPlan(p)
	if r.Config != nil || !r.Redacted {
		t.Errorf("Config = %v, Redacted = %v; want nil, true", r.Config, r.Redacted)
	}
	if got := r.Changes[2].Properties[1]; got.Old != plan.Masked || got.New != plan.Masked || !got.Sensitive {
		t.Errorf("sensitive property in redacted plan = %+v", got)
	}
	// The original is untouched, including nested values.
	if got := p.Changes[2].Properties[1].Old; got != secret {
		t.Errorf("original modified: userData old = %v", got)
	}
	r.Changes[4].Properties[1].New.(map[string]any)["team"] = "changed"
	r.Levels["web"] = 99
	if p.Changes[4].Properties[1].New.(map[string]any)["team"] != "edge" || p.Levels["web"] != 2 {
		t.Error("redacted copy shares values with the original")
	}
	// Everything else is kept.
	want := fullPlan()
	r2 := RedactPlan(want)
	r2.Redacted = false
	r2.Changes[2].Properties[1] = want.Changes[2].Properties[1]
	if diff := cmp.Diff(want, r2); diff != "" {
		t.Errorf("redaction changed more than the sensitive values (-want +got):\n%s", diff)
	}
}
